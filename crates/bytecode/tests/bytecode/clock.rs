//! The clock shift (`instrument::clock`) and the controlled environment
//! (`instrument::environment`: the clock and randomness) on the fixtures and on the Debian
//! subject jars: classes that read neither stay byte-identical, the others name only the
//! runtime's `SystemTime` and `SystemRandom` afterwards, load and pass `-Xverify:all`, and a
//! second rewrite changes nothing.

use std::path::Path;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::instrument::clock::{
    TIME_CLASS, redirects, shift_clock, shift_clock_bytes,
};
use ferrosuite_bytecode::instrument::environment::{self, control, control_bytes};
use ferrosuite_bytecode::instrument::random::RANDOM_CLASS;
use ferrosuite_runtime as runtime;

use crate::java;

/// The clock APIs a class still calls, as `owner.name descriptor`.
fn clock_calls(c: &ClassFile) -> Vec<String> {
    let apis = redirects();
    let mut out = Vec::new();
    for (i, k) in c.constant_pool.entries().iter().enumerate() {
        if !matches!(
            k,
            Constant::Methodref { .. } | Constant::InterfaceMethodref { .. }
        ) {
            continue;
        }
        let m = c
            .constant_pool
            .member_ref(ferrosuite_bytecode::constant_pool::CpIndex(i as u16))
            .unwrap();
        if apis.iter().any(|r| {
            r.from.owner == m.class && r.from.name == m.name && r.from.descriptor == m.descriptor
        }) {
            out.push(format!("{}.{} {}", m.class, m.name, m.descriptor));
        }
    }
    out
}

/// A rewrite of a class, and the same on bytes.
type Rewrite = (
    fn(&mut ClassFile) -> ferrosuite_bytecode::Result<usize>,
    fn(&[u8]) -> ferrosuite_bytecode::Result<Option<Vec<u8>>>,
);

const SHIFT: Rewrite = (shift_clock, shift_clock_bytes);
const CONTROL: Rewrite = (control, control_bytes);

/// Rewrites every class of `classes` (name, bytes) into `out`; returns (classes, changed).
fn shift_all(
    what: &str,
    classes: Vec<(String, Vec<u8>)>,
    out: &Path,
    (rewrite, rewrite_bytes): Rewrite,
) -> (usize, usize) {
    let (mut n, mut changed) = (0, 0);
    for (name, bytes) in classes {
        if name.ends_with("module-info") {
            continue;
        }
        n += 1;
        let mut c = ClassFile::parse(&bytes).unwrap();
        let sites = rewrite(&mut c).unwrap_or_else(|e| panic!("{what} {name}: {e}"));
        let new = c.to_bytes().unwrap();
        if sites == 0 {
            assert_eq!(new, bytes, "{what} {name}: no clock read, but changed");
            continue;
        }
        changed += 1;
        // Constant-pool entries of the old APIs may stay, but no instruction uses them: the
        // rewritten class has no clock call left to shift.
        assert_eq!(
            rewrite_bytes(&new).unwrap(),
            None,
            "{what} {name}: not idempotent"
        );
        let p = out.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &new).unwrap();
    }
    for (name, bytes) in runtime::CLASSES {
        let p = out.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
    (n, changed)
}

#[test]
fn the_fixture_reads_only_the_shifted_clock_and_verifies() {
    let (j8, _) = java::fixtures();
    let bytes = std::fs::read(j8.join("env/Clocks.class")).unwrap();
    let before = ClassFile::parse(&bytes).unwrap();
    assert!(
        clock_calls(&before).len() >= 6,
        "{:?}",
        clock_calls(&before)
    );
    let mut c = before.clone();
    // currentTimeMillis (2 call sites), Instant.now, Clock.systemUTC, LocalDate.now and
    // LocalDate.now(ZoneId), Calendar.getInstance, LocalDateTime.now, the
    // System::currentTimeMillis handle, and new Date() in the constructor.
    let changed = shift_clock(&mut c).unwrap();
    assert_eq!(changed, 10, "sites and handles rewritten");
    let out = java::tmp("clock-fixture").join("out");
    let _ = std::fs::remove_dir_all(&out);
    let classes = vec![("env/Clocks".to_string(), bytes)];
    assert_eq!(shift_all("fixture", classes, &out, SHIFT), (1, 1));
    let shifted = ClassFile::parse(&std::fs::read(out.join("env/Clocks.class")).unwrap()).unwrap();
    let names: Vec<String> = (0..shifted.constant_pool.entries().len())
        .filter_map(|i| {
            shifted
                .constant_pool
                .member_ref(ferrosuite_bytecode::constant_pool::CpIndex(i as u16))
                .ok()
                .map(|m| format!("{}.{}{}", m.class, m.name, m.descriptor))
        })
        .collect();
    for want in [
        format!("{TIME_CLASS}.currentTimeMillis()J"),
        format!("{TIME_CLASS}.localDateNow()Ljava/time/LocalDate;"),
        "java/util/Date.<init>(J)V".to_string(),
    ] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    // The verifier loads the runtime classes the shifted class calls; it checks the others.
    let (ok, n, text) = java::verify_all(&out, &[]);
    assert_eq!((ok, n), (1, 1), "{text}");
}

#[test]
fn subject_jars_shifted_verify_and_unmatched_stay_identical() {
    for name in ["commons-lang3", "guava", "joda-time"] {
        let Some((jar, classes)) = java::subject_classes(name) else {
            continue;
        };
        let out = java::tmp(&format!("clock-{name}")).join("out");
        let _ = std::fs::remove_dir_all(&out);
        let (n, changed) = shift_all(name, classes, &out, CONTROL);
        eprintln!("{name}: {n} classes, {changed} read the clock or randomness, rewritten");
        assert!(changed > 0, "{name}: no class reads the clock?");
        let (ok, total, text) = java::verify_all(&out, &[&jar]);
        assert_eq!(ok, total, "{name}: {text}");
        assert_eq!(total, changed, "{name}: {text}");
    }
}

/// The calls of `class` to the APIs the controlled environment redirects, and its no-argument
/// constructor calls of the seeded classes, as `owner.name descriptor`.
fn environment_calls(c: &ClassFile) -> Vec<String> {
    let apis = environment::redirects();
    let mut out = Vec::new();
    for (i, k) in c.constant_pool.entries().iter().enumerate() {
        if !matches!(k, Constant::Methodref { .. }) {
            continue;
        }
        let m = c
            .constant_pool
            .member_ref(ferrosuite_bytecode::constant_pool::CpIndex(i as u16))
            .unwrap();
        let api = apis.iter().any(|r| {
            r.from.owner == m.class && r.from.name == m.name && r.from.descriptor == m.descriptor
        });
        let seeded =
            environment::seeded_target(&m.class, &m.descriptor).is_some() && m.name == "<init>";
        if api || seeded {
            out.push(format!("{}.{} {}", m.class, m.name, m.descriptor));
        }
    }
    out
}

/// Whether any method of `c` still has an instruction naming one of `calls`.
fn uses(c: &ClassFile, calls: &[String]) -> bool {
    let cp = &c.constant_pool;
    c.methods.iter().filter_map(|m| m.code()).any(|code| {
        ferrosuite_bytecode::insn::decode(&code.code)
            .unwrap()
            .iter()
            .any(|(_, insn)| match insn {
                ferrosuite_bytecode::insn::Insn::Cp { index, .. } => {
                    cp.member_ref(*index).is_ok_and(|m| {
                        calls.contains(&format!("{}.{} {}", m.class, m.name, m.descriptor))
                    })
                }
                _ => false,
            })
    })
}

#[test]
fn the_dice_fixture_draws_only_controlled_randomness_and_verifies() {
    let (j8, _) = java::fixtures();
    let out = java::tmp("environment-fixture").join("out");
    let _ = std::fs::remove_dir_all(&out);
    let mut classes = Vec::new();
    for name in ["env/Dice", "env/Dice$Loaded"] {
        let bytes = std::fs::read(j8.join(format!("{name}.class"))).unwrap();
        let before = ClassFile::parse(&bytes).unwrap();
        let calls = environment_calls(&before);
        assert!(!calls.is_empty(), "{name}");
        let mut c = before.clone();
        assert!(control(&mut c).unwrap() > 0, "{name}");
        assert!(!uses(&c, &calls), "{name} still calls one of {calls:?}");
        classes.push((name.to_string(), bytes));
    }
    // new Random() (constructor and super()), Math.random, UUID.randomUUID,
    // Collections.shuffle, System.nanoTime twice.
    assert_eq!(shift_all("fixture", classes, &out, CONTROL), (2, 2));
    let dice = ClassFile::parse(&std::fs::read(out.join("env/Dice.class")).unwrap()).unwrap();
    let names: Vec<String> = (0..dice.constant_pool.entries().len())
        .filter_map(|i| {
            dice.constant_pool
                .member_ref(ferrosuite_bytecode::constant_pool::CpIndex(i as u16))
                .ok()
                .map(|m| format!("{}.{}{}", m.class, m.name, m.descriptor))
        })
        .collect();
    for want in [
        format!("{RANDOM_CLASS}.seed()J"),
        format!("{RANDOM_CLASS}.random()D"),
        format!("{RANDOM_CLASS}.randomUUID()Ljava/util/UUID;"),
        format!("{RANDOM_CLASS}.shuffle(Ljava/util/List;)V"),
        format!("{TIME_CLASS}.nanoTime()J"),
        "java/util/Random.<init>(J)V".to_string(),
    ] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    let (ok, n, text) = java::verify_all(&out, &[]);
    assert_eq!((ok, n), (2, 2), "{text}");
}
