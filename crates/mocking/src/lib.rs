//! Functional mocking, private access and environment statements (not built yet).
