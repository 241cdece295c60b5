//! Run x qrels -> judged run (trec_eval's `form_res_rels.c` for all queries at once),
//! the counterpart of `cranfield/core/judged.py`'s `judge`.
