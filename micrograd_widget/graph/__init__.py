"""The live graph widget: GraphWidget and its traits, the write rule, the view's requests."""
