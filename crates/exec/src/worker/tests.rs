//! Unit tests of member keys and range merging.

use super::Members;
use super::probes::merge_ranges;

#[test]
fn member_keys_keep_names_apart_whatever_they_hold() {
    let mut m: Members<u32> = Members::new();
    // JVM names may hold NUL (and `:`): these pairs must not share a key.
    for (i, (class, name)) in [("p/A", "x\0y"), ("p/A\0x", "y"), ("a", "1:b"), ("a1:", "b")]
        .into_iter()
        .enumerate()
    {
        assert!(!m.probe(class, name, "()V", false), "{class} {name}");
        m.insert(i as u32);
    }
    assert!(m.probe("p/A", "x\0y", "()V", false));
    assert_eq!(m.last(), Some(&0));
    assert!(m.probe("a1:", "b", "()V", false));
    assert_eq!(m.last(), Some(&3));
    // Static and instance members of the same name and descriptor are different members.
    assert!(!m.probe("p/A", "x\0y", "()V", true));
    assert_eq!(m.last(), None);
}

#[test]
fn ranges_merge_when_they_overlap_or_touch() {
    let merged = merge_ranges([(8, 10), (0, 2), (2, 4), (3, 5), (7, 7), (9, 12)].into_iter());
    assert_eq!(merged, vec![(0, 5), (8, 12)]);
    assert!(merge_ranges(std::iter::empty()).is_empty());
}
