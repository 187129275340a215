//! Clock shift: the code under test reads a clock moved by a fixed amount, so that a value that
//! depends on the time (a date, an hour, a timestamp) differs between two runs even when they
//! fall on the same day. The stability check of `ferrosuite generate` reruns the final tests
//! with shifted clocks and drops every assertion whose value moved.
//!
//! Every call of a JDK clock API in a rewritten class goes to the runtime class
//! `org.ferrosuite.rt.SystemTime` ([`TIME_CLASS`]) instead, whose static field `shiftMillis`
//! the execution host sets once per worker. The static APIs are redirected by constant
//! ([`redirect`](super::redirect),
//! [`RedirectKind::Reference`](super::redirect::RedirectKind::Reference): no code moves), each
//! to a method of the same descriptor:
//!
//! | API | becomes |
//! |---|---|
//! | `System.currentTimeMillis()`, `System.nanoTime()` | `SystemTime.currentTimeMillis()`, `nanoTime()` |
//! | `Clock.systemUTC()`, `systemDefaultZone()`, `system(ZoneId)` | the same clocks, offset by the shift |
//! | `Instant.now()`, and `now()` / `now(ZoneId)` of `LocalDate`, `LocalDateTime`, `LocalTime`, `ZonedDateTime`, `OffsetDateTime`, `OffsetTime`, `Year`, `YearMonth`, `MonthDay` | `instantNow()`, `localDateNow(…)`, … (`now` of the shifted clock) |
//! | `Calendar.getInstance()` and its `(TimeZone)`, `(Locale)`, `(TimeZone, Locale)` forms | `calendar(…)`: the calendar moved by the shift |
//! | `Thread.sleep(long)`, `Thread.sleep(long, int)` | `sleep(…)`: on the virtual clock, moves it on instead of waiting |
//!
//! `new Date()` is a constructor and cannot be redirected by constant: its `invokespecial
//! java/util/Date.<init>()V` is replaced by `invokestatic SystemTime.currentTimeMillis()J;
//! invokespecial java/util/Date.<init>(J)V` (what `Date()` does itself), a [seeded
//! constructor](super::environment::SeededConstructor); a subclass constructor calling
//! `super()` is rewritten the same way.
//!
//! The same rewrite serves two clocks, chosen at run time by `SystemTime`: the system clock
//! moved by a shift (the stability check's), and the controlled environment's virtual clock
//! ([`environment`](super::environment), which adds deterministic randomness).
//!
//! For example, `long t = System.currentTimeMillis();` compiles to `invokestatic
//! java/lang/System.currentTimeMillis()J`; after [`shift_clock`] the same instruction names
//! `org/ferrosuite/rt/SystemTime.currentTimeMillis()J`, which returns the system time plus
//! the shift.
//!
//! Only rewritten classes read the shifted clock: the JDK's own code reading the time for
//! itself (`new GregorianCalendar()`, `new java.sql.Timestamp(…)` from a value the JDK read,
//! `LocalDate.now(Clock.systemUTC())` inside the JDK, file times) does not, and neither does a
//! `Date::new` method reference or a handle built at run time. Statements the execution host
//! runs itself ask [`redirect_target`] for the same table.
//!
//! ```
//! use ferrosuite_bytecode::instrument::clock::{TIME_CLASS, redirect_target};
//! let to = redirect_target("java/lang/System", "currentTimeMillis", "()J").unwrap();
//! assert_eq!((to.owner.as_str(), to.name.as_str()), (TIME_CLASS, "currentTimeMillis"));
//! assert!(redirect_target("java/lang/System", "identityHashCode", "(Ljava/lang/Object;)I").is_none());
//! ```

use crate::classfile::ClassFile;
use crate::error::{Error, Result};
use crate::instrument::RUNTIME_PACKAGE;
use crate::instrument::environment::{SeededConstructor, seeded_constructors};
use crate::instrument::redirect::{MemberSpec, Redirect, TargetIndex, redirect};

/// Internal name of the runtime class with the shifted clock.
pub const TIME_CLASS: &str = "org/ferrosuite/rt/SystemTime";

/// Name of the static field of [`TIME_CLASS`] that holds the shift in milliseconds (`J`).
pub const SHIFT_FIELD: &str = "shiftMillis";

/// The `java.time` types whose `now()` and `now(ZoneId)` are redirected, with the name stem of
/// their stand-ins (`localDateNow`).
const NOW_TYPES: [(&str, &str); 9] = [
    ("LocalDate", "localDate"),
    ("LocalDateTime", "localDateTime"),
    ("LocalTime", "localTime"),
    ("ZonedDateTime", "zonedDateTime"),
    ("OffsetDateTime", "offsetDateTime"),
    ("OffsetTime", "offsetTime"),
    ("Year", "year"),
    ("YearMonth", "yearMonth"),
    ("MonthDay", "monthDay"),
];

/// The static clock APIs and their stand-ins in [`TIME_CLASS`] (same descriptors).
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let to_time = |from: MemberSpec, name: &str| Redirect::to_static(from, TIME_CLASS, name);
    let mut out = vec![
        to_time(
            MemberSpec::new("java/lang/System", "currentTimeMillis", "()J"),
            "currentTimeMillis",
        ),
        to_time(
            MemberSpec::new("java/lang/System", "nanoTime", "()J"),
            "nanoTime",
        ),
        to_time(
            MemberSpec::new("java/time/Clock", "systemUTC", "()Ljava/time/Clock;"),
            "systemUTC",
        ),
        to_time(
            MemberSpec::new(
                "java/time/Clock",
                "systemDefaultZone",
                "()Ljava/time/Clock;",
            ),
            "systemDefaultZone",
        ),
        to_time(
            MemberSpec::new(
                "java/time/Clock",
                "system",
                "(Ljava/time/ZoneId;)Ljava/time/Clock;",
            ),
            "system",
        ),
        to_time(
            MemberSpec::new("java/time/Instant", "now", "()Ljava/time/Instant;"),
            "instantNow",
        ),
        to_time(
            MemberSpec::new("java/lang/Thread", "sleep", "(J)V"),
            "sleep",
        ),
        to_time(
            MemberSpec::new("java/lang/Thread", "sleep", "(JI)V"),
            "sleep",
        ),
    ];
    for (ty, stem) in NOW_TYPES {
        let owner = format!("java/time/{ty}");
        for params in ["", "Ljava/time/ZoneId;"] {
            out.push(to_time(
                MemberSpec::new(&owner, "now", &format!("({params})L{owner};")),
                &format!("{stem}Now"),
            ));
        }
    }
    for params in [
        "",
        "Ljava/util/TimeZone;",
        "Ljava/util/Locale;",
        "Ljava/util/TimeZone;Ljava/util/Locale;",
    ] {
        out.push(to_time(
            MemberSpec::new(
                "java/util/Calendar",
                "getInstance",
                &format!("({params})Ljava/util/Calendar;"),
            ),
            "calendar",
        ));
    }
    out
}

/// The stand-in of a static clock API, if it is one (for statements that call the API
/// directly, which no class rewriting reaches).
#[must_use]
pub fn redirect_target(owner: &str, name: &str, descriptor: &str) -> Option<MemberSpec> {
    // Indexed once per process: the worker asks for every statement it runs.
    static TARGETS: std::sync::OnceLock<TargetIndex> = std::sync::OnceLock::new();
    TARGETS
        .get_or_init(|| TargetIndex::of_references(&redirects()))
        .get(owner, name, descriptor)
        .cloned()
}

/// Rewrites every clock read of the class to the shifted clock; returns the number of
/// instructions and method handles changed (0: the class is unchanged). Classes of the
/// runtime package are refused.
pub fn shift_clock(class: &mut ClassFile) -> Result<usize> {
    let name = class.name()?.into_owned();
    if name.starts_with(RUNTIME_PACKAGE)
        && name.as_bytes().get(RUNTIME_PACKAGE.len()) == Some(&b'/')
    {
        return Err(Error::Rewrite(format!(
            "{}: the ferrosuite runtime reads the real clock",
            name.replace('/', ".")
        )));
    }
    // Work on a copy: the class changes only when everything succeeded.
    let mut out = class.clone();
    let changed = redirect(&mut out, &redirects())? + new_date(&mut out, &name)?;
    if changed > 0 {
        *class = out;
    }
    Ok(changed)
}

/// [`shift_clock`] on class-file bytes: the rewritten bytes, or `None` when the class reads no
/// clock (its bytes stay valid as they are).
pub fn shift_clock_bytes(bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    let mut class = ClassFile::parse(bytes)?;
    if shift_clock(&mut class)? == 0 {
        return Ok(None);
    }
    class.to_bytes().map(Some)
}

/// `new Date()` at the clock's time: `invokespecial java/util/Date.<init>()V` →
/// `invokestatic SystemTime.currentTimeMillis()J; invokespecial java/util/Date.<init>(J)V`.
pub const NEW_DATE: SeededConstructor = SeededConstructor {
    class: "java/util/Date",
    descriptor: "()V",
    value: "J",
    owner: TIME_CLASS,
    name: "currentTimeMillis",
    factory: "newDate",
};

fn new_date(class: &mut ClassFile, name: &str) -> Result<usize> {
    seeded_constructors(class, name, &[NEW_DATE])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stand_in_has_the_descriptor_of_its_api() {
        let all = redirects();
        assert_eq!(all.len(), 8 + 2 * NOW_TYPES.len() + 4);
        for r in &all {
            assert!(r.check().is_ok(), "{r:?}");
            assert_eq!(r.to.owner, TIME_CLASS);
        }
        let to = redirect_target(
            "java/time/LocalDate",
            "now",
            "(Ljava/time/ZoneId;)Ljava/time/LocalDate;",
        );
        assert_eq!(to.map(|m| m.name), Some("localDateNow".to_string()));
        assert!(
            redirect_target(
                "java/time/LocalDate",
                "now",
                "(Ljava/time/Clock;)Ljava/time/LocalDate;"
            )
            .is_none()
        );
    }
}
