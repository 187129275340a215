//! Errors of the search crate.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong in the search operators.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The test model rejected something (a malformed descriptor in the cluster).
    #[error(transparent)]
    Model(#[from] ferrosuite_testcase::Error),
    /// A descriptor in the test cluster does not parse.
    #[error(transparent)]
    Descriptor(#[from] ferrosuite_bytecode::Error),
    /// The execution host failed (not a test: a worker that cannot start, a broken pipe).
    #[error(transparent)]
    Execution(#[from] ferrosuite_executor::Error),
    /// Goals could not be built.
    #[error(transparent)]
    Fitness(#[from] ferrosuite_fitness::Error),
    /// A parameter of [`Config`](crate::Config) is out of range (the message names it).
    #[error("invalid search configuration: {0}")]
    Config(String),
    /// The test cluster contradicts itself: an operation's recorded value type is not the
    /// type its statement gives (a cluster built by hand or loaded from elsewhere).
    #[error("inconsistent test cluster: {0}")]
    Cluster(String),
    /// The test cluster offers nothing to call on the class under test.
    #[error(
        "nothing to test in {0}: no accessible constructor, method or field of the class under test can be used"
    )]
    NothingToCall(String),
    /// Random test sampling produced no statement (every insertion failed, for example
    /// because each call needs more statements than a test may have).
    #[error("no test could be built for {cut} in {attempts} insertion attempts")]
    Construction {
        /// Internal name of the class under test.
        cut: String,
        /// Insertion attempts made.
        attempts: usize,
    },
    /// An algorithm of another crate failed for a reason of its own.
    #[error(transparent)]
    Algorithm(Box<dyn std::error::Error + Send + Sync>),
    /// A suite refers to a test its [`TestStore`](crate::suite::TestStore) does not hold (the
    /// store was pruned of a test a suite still holds, or the suite comes from another store).
    #[error("test {} of a suite is not in the test store", .0.0)]
    UnknownTest(crate::suite::TestId),
}
