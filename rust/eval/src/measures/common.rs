//! Helpers shared by the kernels (the counterpart of `measures/_common.py`).
