"""Local CEP engine."""
