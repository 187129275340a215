//! Control flow graphs, post-dominators, control dependence and coupled branches (not built yet: issue 3).
