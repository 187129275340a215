//! Coverage goals, branch distance and suite fitness (not built yet: issue 5).
