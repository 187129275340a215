//! `JUnit` 5/4 + Mockito source emission (not built yet: issue 6).
