"""micrograd: a tiny scalar autograd engine and a neural-network library on top of it."""
