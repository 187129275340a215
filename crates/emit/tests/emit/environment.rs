//! The controlled environment in emitted tests: a class whose tests reproduce it gets the two
//! hooks (`Environment.install()` once, `Environment.begin()` before each test) with JUnit 5's
//! or JUnit 4's annotations. (Such classes are compiled and run against the runtime jar by
//! `generate`'s pipeline tests: this crate stays free of the JVM-built runtime.)

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_emit::{ClassPathTypes, Config, EmitTest, JUnit, emit_class};
use ferrosuite_testcase::{Statement, Test};

use crate::common::{fixtures, golden, m};

fn cases() -> Vec<EmitTest> {
    vec![EmitTest {
        test: Test::new(vec![
            Statement::constructor("env/Dice", "()V", vec![]),
            m("env/Dice", "roll", "()I", Some(0), &[]),
            Statement::constructor("java/util/Random", "()V", vec![]),
            m("env/Dice", "draw", "(Ljava/util/Random;)I", None, &[2]),
        ]),
        assertions: vec![],
        expected: None,
        raw_types: false,
        message: None,
    }]
}

#[test]
fn reproducing_classes_get_the_hooks() {
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    for (junit, file, once, each) in [
        (
            JUnit::Five,
            "DiceTest.junit5.java",
            "@BeforeAll",
            "@BeforeEach",
        ),
        (
            JUnit::Four,
            "DiceTest.junit4.java",
            "@BeforeClass",
            "@Before",
        ),
    ] {
        let config = Config {
            junit,
            environment: true,
            ..Config::default()
        };
        let class = emit_class("env/Dice", &cases(), &config, &types).unwrap();
        golden(file, &class.source);
        let src = &class.source;
        for want in [
            "import org.ferrosuite.rt.Environment;",
            once,
            "public static void controlEnvironment() {",
            "        Environment.install();",
            each,
            "public void resetEnvironment() {",
            "        Environment.begin();",
        ] {
            assert!(src.contains(want), "{want}:\n{src}");
        }
        let plain = emit_class(
            "env/Dice",
            &cases(),
            &Config {
                junit,
                ..Config::default()
            },
            &types,
        )
        .unwrap();
        assert!(!plain.source.contains("Environment"), "{}", plain.source);
    }
}
