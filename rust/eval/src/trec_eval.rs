//! trec_eval's output: measure columns printed as trec_eval 10.0 prints them, the
//! counterpart of `cranfield/core/trec_eval.py`'s `run_trec_eval`.
