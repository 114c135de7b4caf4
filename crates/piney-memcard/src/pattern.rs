//! The wildcard match of `mcGetDir` ("*", "BESLUS-*", "*.ico", "???"...), and the split of a
//! `mcGetDir` argument into directory and pattern.
//!
//! Contract: [`matches`] gives the result of MCMAN's `mcman_checkdirpath` (ps2sdk
//! `iop/memorycard/mcman/src/main.c`) for every name and pattern, including its quirks:
//! * before the first '*', each '?' consumes one byte of the name, and a '?' reached when the
//!   name has ended makes the whole match succeed ("AB??" matches "AB", "A?C" matches "A");
//! * from the first '*' on, every '?' and '*' of a run is skipped and the rest must match
//!   somewhere at or after the current point, by the same rules;
//! * without wildcards the match is exact (case-sensitive bytes).
//!
//! The console's version is exponential on hostile patterns; this one memoises the
//! (name position, pattern position) pairs it tries, so it is bounded by their number.

/// Whether `name` matches `pat` as `mcGetDir` matches.
pub(crate) fn matches(name: &[u8], pat: &[u8]) -> bool {
    let mut m = Matcher {
        name,
        pat,
        memo: vec![0; (name.len() + 1) * (pat.len() + 1)],
    };
    m.at(0, 0)
}

struct Matcher<'a> {
    name: &'a [u8],
    pat: &'a [u8],
    /// 0 = not tried, 1 = false, 2 = true; index `ni * (pat.len() + 1) + pi`.
    memo: Vec<u8>,
}

impl Matcher<'_> {
    fn at(&mut self, ni: usize, pi: usize) -> bool {
        let key = ni * (self.pat.len() + 1) + pi;
        match self.memo[key] {
            1 => return false,
            2 => return true,
            _ => {}
        }
        let r = self.compute(ni, pi);
        self.memo[key] = if r { 2 } else { 1 };
        r
    }

    fn compute(&mut self, mut ni: usize, mut pi: usize) -> bool {
        let (name, pat) = (self.name, self.pat);
        // The part before the first '*'.
        loop {
            let rest = &pat[pi..];
            let Some(pos) = rest.iter().position(|&c| c == b'?' || c == b'*') else {
                return &name[ni..] == rest;
            };
            // The literal prefix must be present in full (strncmp stops at the name's end).
            if name.len() - ni < pos || name[ni..ni + pos] != rest[..pos] {
                return false;
            }
            ni += pos;
            pi += pos;
            while pat.get(pi) == Some(&b'?') {
                if ni == name.len() {
                    return true;
                }
                ni += 1;
                pi += 1;
            }
            if pat.get(pi) == Some(&b'*') {
                break;
            }
        }
        // A run of '*' and '?' matches anything.
        while matches!(pat.get(pi), Some(b'*' | b'?')) {
            pi += 1;
        }
        let Some(&first) = pat.get(pi) else {
            return true;
        };
        let mut start = ni;
        while let Some(off) = name[start..].iter().position(|&c| c == first) {
            if self.at(start + off, pi) {
                return true;
            }
            start += off + 1;
        }
        false
    }
}

/// Splits a `mcGetDir` argument at its last '/': ("/DIR", "*") for "/DIR/*", ("/", "*") for
/// "/*", ("", "*.ico") for "*.ico" (the current directory), as `mcman_getdir2` does.
pub(crate) fn split_dir_pattern(arg: &[u8]) -> (&[u8], &[u8]) {
    match arg.iter().rposition(|&c| c == b'/') {
        None => (&arg[..0], arg),
        Some(0) => (&arg[..1], &arg[1..]),
        Some(p) => (&arg[..p], &arg[p + 1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_star() {
        assert!(matches(b"icon.sys", b"icon.sys"));
        assert!(!matches(b"icon.sys", b"icon.sy"));
        assert!(!matches(b"Icon.sys", b"icon.sys"));
        assert!(matches(b"anything", b"*"));
        assert!(matches(b"", b"*"));
        assert!(matches(b"BESLUS-20267", b"BESLUS-*"));
        assert!(!matches(b"BASLUS-20267", b"BESLUS-*"));
        assert!(matches(b"view.ico", b"*.ico"));
        assert!(!matches(b"view.icon", b"*.ico"));
        assert!(matches(b"a.ico.ico", b"*.ico"));
        assert!(matches(b"abcabd", b"*ab?"));
    }

    #[test]
    fn question_marks_like_mcman() {
        assert!(matches(b"ABCD", b"AB??"));
        assert!(!matches(b"ABCDE", b"AB??"));
        // A '?' at the end of the name ends the match successfully.
        assert!(matches(b"AB", b"AB??"));
        assert!(matches(b"A", b"A?C"));
        assert!(!matches(b"AXD", b"A?C"));
        // After a '*', '?' are skipped.
        assert!(matches(b"X", b"*?"));
    }

    #[test]
    fn hostile_pattern_is_fast() {
        let name = [b'a'; 32];
        let mut pat = Vec::new();
        for _ in 0..200 {
            pat.extend_from_slice(b"*a");
        }
        pat.push(b'b');
        assert!(!matches(&name, &pat));
    }

    #[test]
    fn split() {
        assert_eq!(split_dir_pattern(b"/DIR/*"), (&b"/DIR"[..], &b"*"[..]));
        assert_eq!(split_dir_pattern(b"/*"), (&b"/"[..], &b"*"[..]));
        assert_eq!(split_dir_pattern(b"*.ico"), (&b""[..], &b"*.ico"[..]));
        assert_eq!(split_dir_pattern(b"A/B/c*"), (&b"A/B"[..], &b"c*"[..]));
    }
}
