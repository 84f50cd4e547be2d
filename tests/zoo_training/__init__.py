"""Training kernels with planted backward bugs: each must fail its gradient check with a message naming the
gradient, the case and where the errors lie."""
