//! Whole-suite GA, MOSA, `DynaMOSA`, archive and minimisation (not built yet: issue 5).
