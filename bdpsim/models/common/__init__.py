"""What the model kinds share without subclassing one another: a kind package imports its siblings'
code only from here (checked by tests/architecture/test_layers.py)."""
