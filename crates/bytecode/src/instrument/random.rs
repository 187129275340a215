//! Deterministic randomness: the code under test draws numbers from seeds the runtime class
//! `org.ferrosuite.rt.SystemRandom` ([`RANDOM_CLASS`]) hands out, a sequence that starts again
//! with every test, instead of from the JDK's time- and entropy-seeded sources.
//!
//! | API | becomes |
//! |---|---|
//! | `new Random()` (and `super()` of a subclass) | `new Random(SystemRandom.seed())` (a [seeded constructor](super::environment)) |
//! | `Math.random()`, `StrictMath.random()` | `SystemRandom.random()` |
//! | `UUID.randomUUID()` | `SystemRandom.randomUUID()` |
//! | `Collections.shuffle(List)` | `SystemRandom.shuffle(List)` (with this test's `Random`) |
//! | `ThreadLocalRandom`'s `nextInt`, `nextLong`, `nextDouble` (each with no, one or two bounds), `nextBoolean`, `nextFloat`, `nextGaussian` | `SystemRandom`'s of the same name taking the receiver first (a per-test `Random`, whatever the thread) |
//! | `new SplittableRandom()` | `new SplittableRandom(SystemRandom.seed())` |
//! | `new SecureRandom()`, `new SecureRandom(byte[])` | a [factory](super::files::Factory): `SystemRandom.newSecureRandom(…)`, a `SecureRandom` drawing from this test's next seed |
//! | `SecureRandom.getInstance(…)` (three forms), `getInstanceStrong()`, `getSeed(int)` | `SystemRandom`'s of the same descriptor (the JDK's checks of the algorithm and provider, then such a generator) |
//!
//! Other draws from a `ThreadLocalRandom` (through a `Random` reference, its streams) use the
//! seed it keeps in the thread: the execution host sets the executing thread's seed before each
//! test (JDK 17 and later mix the thread's id into each draw, so only the same thread draws
//! the same numbers). Not redirected: `Random::new` method references, a subclass of
//! `SecureRandom`, `SecureRandom.getInstance` with JDK 9's parameters, and the JDK's own draws
//! (their output stays the machine's, and the stability check drops what depends on it).
//!
//! ```
//! use ferrosuite_bytecode::instrument::random::{RANDOM_CLASS, redirects};
//! let r = redirects();
//! assert!(r.iter().any(|r| r.from.name == "random" && r.to.owner == RANDOM_CLASS));
//! ```

use crate::instrument::environment::SeededConstructor;
use crate::instrument::files::Factory;
use crate::instrument::redirect::{MemberSpec, Redirect};

/// Internal name of the runtime class with the deterministic randomness.
pub const RANDOM_CLASS: &str = "org/ferrosuite/rt/SystemRandom";

/// Name of the static field of [`RANDOM_CLASS`] mixed into every seed (`J`): 0 in the search,
/// other values in the stability reruns.
pub const SALT_FIELD: &str = "salt";

/// `new Random()` with this test's next seed.
pub const NEW_RANDOM: SeededConstructor = SeededConstructor {
    class: "java/util/Random",
    descriptor: "()V",
    value: "J",
    owner: RANDOM_CLASS,
    name: "constructorSeed",
    factory: "newRandom",
};

/// `new SplittableRandom()` with this test's next seed.
pub const NEW_SPLITTABLE_RANDOM: SeededConstructor = SeededConstructor {
    class: "java/util/SplittableRandom",
    descriptor: "()V",
    value: "J",
    owner: RANDOM_CLASS,
    name: "seed",
    factory: "newSplittableRandom",
};

const SECURE_RANDOM: &str = "java/security/SecureRandom";

/// The `SecureRandom` constructors and their factories in [`RANDOM_CLASS`].
pub const FACTORIES: [Factory; 2] = [
    Factory {
        class: SECURE_RANDOM,
        descriptor: "()V",
        owner: RANDOM_CLASS,
        name: "newSecureRandom",
    },
    Factory {
        class: SECURE_RANDOM,
        descriptor: "([B)V",
        owner: RANDOM_CLASS,
        name: "newSecureRandom",
    },
];

/// The static randomness APIs and their stand-ins in [`RANDOM_CLASS`] (same descriptors).
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let to = |owner: &str, name: &str, descriptor: &str, stand_in: &str| {
        Redirect::to_static(
            MemberSpec::new(owner, name, descriptor),
            RANDOM_CLASS,
            stand_in,
        )
    };
    let mut out = vec![
        to("java/lang/Math", "random", "()D", "random"),
        to("java/lang/StrictMath", "random", "()D", "random"),
        to(
            "java/util/UUID",
            "randomUUID",
            "()Ljava/util/UUID;",
            "randomUUID",
        ),
        to(
            "java/util/Collections",
            "shuffle",
            "(Ljava/util/List;)V",
            "shuffle",
        ),
    ];
    let secure = "Ljava/security/SecureRandom;";
    for (name, descriptor) in [
        ("getInstance", format!("(Ljava/lang/String;){secure}")),
        (
            "getInstance",
            format!("(Ljava/lang/String;Ljava/lang/String;){secure}"),
        ),
        (
            "getInstance",
            format!("(Ljava/lang/String;Ljava/security/Provider;){secure}"),
        ),
        ("getInstanceStrong", format!("(){secure}")),
        ("getSeed", "(I)[B".to_string()),
    ] {
        out.push(to(SECURE_RANDOM, name, &descriptor, name));
    }
    out.extend(THREAD_LOCAL_DRAWS.iter().map(|(name, descriptor)| {
        Redirect::instance_to_static(
            MemberSpec::new(THREAD_LOCAL_RANDOM, name, descriptor),
            RANDOM_CLASS,
            name,
        )
    }));
    out
}

const THREAD_LOCAL_RANDOM: &str = "java/util/concurrent/ThreadLocalRandom";

/// The draws of `ThreadLocalRandom` redirected (name, descriptor).
const THREAD_LOCAL_DRAWS: [(&str, &str); 12] = [
    ("nextInt", "()I"),
    ("nextInt", "(I)I"),
    ("nextInt", "(II)I"),
    ("nextLong", "()J"),
    ("nextLong", "(J)J"),
    ("nextLong", "(JJ)J"),
    ("nextDouble", "()D"),
    ("nextDouble", "(D)D"),
    ("nextDouble", "(DD)D"),
    ("nextBoolean", "()Z"),
    ("nextFloat", "()F"),
    ("nextGaussian", "()D"),
];
