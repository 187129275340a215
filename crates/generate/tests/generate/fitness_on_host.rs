//! The whole-suite paper's `Stack` (Figure 1), run through the real execution host: goals
//! covered by hand-written tests, fitness falling as tests are added, the infeasible branch.

use std::sync::Arc;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, BranchId, ClassAnalysis};
use ferrosuite_exec::{Host, HostConfig, TestResult};
use ferrosuite_fitness::{Config, Criteria, GoalId, GoalSet, Target, Trace, names};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::common::{fixtures, worker};

fn java8() -> std::path::PathBuf {
    fixtures().clone()
}

const STACK: &str = "examples/Stack";

fn call(name: &str, desc: &str, args: Vec<VarRef>) -> Statement {
    Statement::method(STACK, name, desc, Some(VarRef(0)), args)
}

/// `new Stack()`, then `pushes` pushes of 7, then `pops` pops.
fn test(pushes: usize, pops: usize) -> Test {
    let mut s = vec![
        Statement::constructor(STACK, "()V", vec![]),
        Statement::Primitive(Prim::Int(7)),
    ];
    s.extend((0..pushes).map(|_| call("push", "(I)V", vec![VarRef(1)])));
    s.extend((0..pops).map(|_| call("pop", "()I", vec![])));
    Test::new(s)
}

struct Setup {
    host: Host,
    analysis: Arc<ClassAnalysis>,
    cp: ClassPath,
}

fn setup() -> Option<Setup> {
    let worker = worker()?;
    let host = Host::start(HostConfig {
        classpath: vec![java8()],
        instrument: vec![STACK.into()],
        worker: Some(worker),
        ..HostConfig::default()
    })
    .unwrap();
    let cp = ClassPath::parse(&java8().display().to_string()).unwrap();
    let analysis = Analyzer::new(&cp, ferrosuite_cfg::Config::default())
        .class(STACK)
        .unwrap();
    Some(Setup { host, analysis, cp })
}

impl Setup {
    fn goals(&self, criteria: Criteria) -> GoalSet {
        GoalSet::for_class(
            self.host.map(),
            Config {
                criteria,
                ..Config::default()
            },
            &self.analysis,
            Some(&self.cp.load(STACK).unwrap()),
        )
        .unwrap()
    }

    fn run(&mut self, goals: &GoalSet, tests: &[Test]) -> Vec<Trace> {
        let results: Vec<TestResult> = self.host.run(tests, true).unwrap();
        tests
            .iter()
            .zip(&results)
            .map(|(t, r)| Trace::from_result(goals, t, r))
            .collect()
    }
}

/// The analysis's branch ids covered by a trace, through the goal set.
fn covered_branches(goals: &GoalSet, t: &Trace) -> Vec<u32> {
    goals
        .covered(t)
        .into_iter()
        .filter_map(|g| match goals.goals()[g.index()].target {
            Target::Branch { branch, .. } => Some(branch.0),
            _ => None,
        })
        .collect()
}

#[test]
fn hand_written_stack_tests_cover_the_expected_goals() {
    let Some(mut s) = setup() else { return };
    let mut goals = s.goals(Criteria::default());
    // b0 push: size < length (no resize)   b1 push: full, resize
    // b2 push: the infeasible else          b3 push: store
    // b4 pop: empty, throw                  b5 pop: return
    // b6 resize: loop exit                  b7 resize: loop body
    let tests = [test(1, 0), test(0, 1), test(4, 1)];
    let traces = s.run(&goals, &tests);
    assert_eq!(covered_branches(&goals, &traces[0]), [0, 3]);
    assert_eq!(covered_branches(&goals, &traces[1]), [4]);
    assert_eq!(covered_branches(&goals, &traces[2]), [0, 1, 3, 5, 6, 7]);

    // Whole-suite fitness falls with every test added and never reaches 0: the infeasible
    // branch stays uncovered.
    let mut last = goals.suite_fitness(&[]);
    assert_eq!(last.total, goals.max_suite_fitness());
    for k in 1..=traces.len() {
        let suite: Vec<&Trace> = traces[..k].iter().collect();
        let f = goals.suite_fitness(&suite);
        assert!(f.total < last.total, "{} !< {}", f.total, last.total);
        assert!(f.covered > last.covered);
        last = f;
    }
    assert!(!last.complete());
    assert!(last.total > 0.0);
    let merged = Trace::merged(&traces);
    let uncovered: Vec<String> = goals
        .goals()
        .iter()
        .filter(|g| !goals.is_covered(g.id, &merged))
        .map(|g| g.description.clone())
        .collect();
    // Among branches, lines and methods only the infeasible branch is left.
    assert_eq!(uncovered.len(), 1, "{uncovered:?}");
    let infeasible = goals
        .branch_goal(goals.classes()[0].index, BranchId(2))
        .unwrap();
    let g = goals.goal(infeasible).unwrap();
    assert_eq!(uncovered[0], g.description);
    // Infeasible by semantics, not dead code: the flag says reachable.
    assert!(g.reachable, "{g}");
    assert!(
        g.description
            .starts_with("examples.Stack.push(I)V line 17 @")
    );
    assert!(g.description.ends_with("if_icmpge taken"));
    // Its predicate ran many times: the branch term is ν(d) for it, in (0, 1).
    let part = last.part(names::BRANCH).unwrap();
    assert!(part > 0.0 && part < 1.0, "{part}");
    assert_eq!(part, goals.fitness(infeasible, &merged));

    // pop() on an empty stack throws an undeclared EmptyStackException: an exception goal.
    assert_eq!(last.exceptions, 1);
    assert_eq!(last.part(names::EXCEPTION), Some(0.5));
    let new = goals.discover_goals(&merged);
    assert_eq!(new.len(), 1);
    assert_eq!(
        goals.goal(new[0]).unwrap().description,
        "examples.Stack.pop()I throws java.util.EmptyStackException"
    );
    assert!(goals.is_covered(new[0], &traces[1]));
    assert!(!goals.is_covered(new[0], &traces[2]));

    // Running the same tests again gives the same traces.
    assert_eq!(s.run(&goals, &tests), traces);
}

#[test]
fn per_goal_fitness_guides_towards_uncovered_branches() {
    let Some(mut s) = setup() else { return };
    let goals = s.goals(Criteria::branch());
    let class = goals.classes()[0].index;
    let goal = |b: u32| goals.branch_goal(class, BranchId(b)).unwrap();
    let traces = s.run(&goals, &[test(1, 0), test(2, 0), test(3, 0), test(0, 0)]);
    // The resize branch (b1) needs a full stack: each push brings it closer.
    let f: Vec<f64> = traces.iter().map(|t| goals.fitness(goal(1), t)).collect();
    assert!(f[0] > 0.0 && f[0] < 1.0, "{f:?}");
    assert!(f[1] < f[0] && f[2] < f[1], "{f:?}");
    // A test that never pushes: approach level 1 from push's entry, +1 for not entering it.
    assert_eq!(f[3], 2.0);
    // resize's loop is not reached without a resize: its method was not entered.
    assert_eq!(goals.fitness(goal(7), &traces[2]), 2.0);
    // pop's branches: pop never called.
    assert_eq!(goals.fitness(goal(4), &traces[0]), 2.0);
    // The objective vector over DynaMOSA's initial goals: every Stack goal is a root.
    assert_eq!(goals.initial_goals().len(), goals.goals().len());
    let v = goals.fitness_vector(goals.initial_goals(), &traces[0]);
    let zeros: Vec<GoalId> = goals
        .initial_goals()
        .iter()
        .zip(&v)
        .filter(|(_, f)| **f == 0.0)
        .map(|(g, _)| *g)
        .collect();
    assert_eq!(zeros, goals.covered(&traces[0]));
    // The constructor is the branchless method goal.
    assert!(
        zeros
            .iter()
            .any(|g| goals.goals()[g.index()].description
                == "examples.Stack.<init>()V (no branches)")
    );
}
