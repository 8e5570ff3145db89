//! Line reading that follows docs/protocol.md's whitespace rules: blank lines anywhere
//! are skipped, trailing spaces and CR are dropped, and every line keeps its
//! 1-based number for error messages.

use super::ParseError;

/// A meaningful (non-blank) line with its 1-based line number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub number: usize,
    /// The line without trailing whitespace (leading whitespace kept: some
    /// boards are column-sensitive).
    pub text: &'a str,
}

impl<'a> Line<'a> {
    /// An error about this line.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::at(self.number, message)
    }

    /// The line as a player number, `1` or `2` (the side-to-move line of the
    /// tagged games).
    pub(crate) fn player_number(&self) -> Result<super::Player, ParseError> {
        match self.text.trim() {
            "1" => Ok(super::Player::One),
            "2" => Ok(super::Player::Two),
            other => Err(self.error(format!("expected the player to move, 1 or 2, found {other:?}"))),
        }
    }

    /// Whitespace-separated tokens of the line.
    pub fn tokens(&self) -> impl Iterator<Item = &'a str> {
        self.text.split_whitespace()
    }

    /// Parses the line as exactly `n` whitespace-separated values of type `T`,
    /// `what` naming them for the error message.
    pub(crate) fn parse_n<T: std::str::FromStr>(&self, n: usize, what: &str) -> Result<Vec<T>, ParseError> {
        let toks: Vec<&str> = self.tokens().collect();
        if toks.len() != n {
            return Err(self.error(format!("expected {what} ({n} values), found {:?}", self.text)));
        }
        toks.iter()
            .map(|t| {
                t.parse::<T>()
                    .map_err(|_| self.error(format!("expected {what}, found {t:?} in {:?}", self.text)))
            })
            .collect()
    }

    /// Parses the line as exactly `n` sizes or counts (non-negative integers),
    /// `what` naming them. A number too long for any size (all digits, but
    /// beyond `usize`) is called too large with `limit`, the game's documented
    /// bound, rather than "not a number": that is what a person needs to fix.
    pub(crate) fn parse_sizes(&self, n: usize, what: &str, limit: &str) -> Result<Vec<usize>, ParseError> {
        let toks: Vec<&str> = self.tokens().collect();
        if toks.len() != n {
            return Err(self.error(format!("expected {what} ({n} values), found {:?}", self.text)));
        }
        toks.iter()
            .map(|t| {
                t.parse::<usize>().map_err(|_| {
                    let digits = t.strip_prefix('+').unwrap_or(t);
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        self.error(format!("{t} is too large for {what}: {limit}"))
                    } else {
                        self.error(format!("expected {what}, found {t:?} in {:?}", self.text))
                    }
                })
            })
            .collect()
    }
}

/// Iterator over the meaningful lines of a file.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    inner: std::iter::Enumerate<std::str::Lines<'a>>,
}

impl<'a> Lines<'a> {
    /// Reads `text` (LF or CRLF).
    pub fn new(text: &'a str) -> Self {
        Lines {
            inner: text.lines().enumerate(),
        }
    }

    /// The next non-blank line, or an error saying the file ended where
    /// `expected` should have come.
    pub(crate) fn next_line(&mut self, expected: &str) -> Result<Line<'a>, ParseError> {
        self.next()
            .ok_or_else(|| ParseError::whole(format!("the file ends where {expected} was expected")))
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        for (i, raw) in self.inner.by_ref() {
            let text = raw.trim_end();
            if !text.trim().is_empty() {
                return Some(Line { number: i + 1, text });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_blanks_and_keeps_numbers() {
        let mut l = Lines::new("\r\nA  \r\n\n  \nB\tC");
        assert_eq!(l.next(), Some(Line { number: 2, text: "A" }));
        assert_eq!(
            l.next(),
            Some(Line {
                number: 5,
                text: "B\tC"
            })
        );
        assert_eq!(l.next(), None);
        assert!(l.next_line("a board row").unwrap_err().message.contains("a board row"));
    }

    #[test]
    fn player_numbers() {
        use super::super::Player;
        assert_eq!(Line { number: 3, text: "2" }.player_number(), Ok(Player::Two));
        assert_eq!(Line { number: 3, text: " 1" }.player_number(), Ok(Player::One));
        let e = Line { number: 3, text: "3" }.player_number().unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("1 or 2"));
    }

    #[test]
    fn parse_sizes_calls_an_overlong_number_too_large_with_the_limit() {
        let l = Line {
            number: 5,
            text: "3 99999999999999999999999",
        };
        let e = l.parse_sizes(2, "the board size", "at most 10x10").unwrap_err();
        assert_eq!(e.line, 5);
        assert_eq!(
            e.message,
            "99999999999999999999999 is too large for the board size: at most 10x10"
        );
        let e = Line {
            number: 5,
            text: "3 -4",
        }
        .parse_sizes(2, "the board size", "at most 10x10")
        .unwrap_err();
        assert!(
            e.message.contains("expected the board size, found \"-4\""),
            "{}",
            e.message
        );
        assert_eq!(
            Line { number: 1, text: "3 4" }.parse_sizes(2, "r c", "").unwrap(),
            vec![3, 4]
        );
    }

    #[test]
    fn parse_n_reports_what_was_expected() {
        let l = Line { number: 7, text: "4 x" };
        let e = l.parse_n::<usize>(2, "rows and columns").unwrap_err();
        assert_eq!(e.line, 7);
        assert!(e.message.contains("rows and columns"));
        assert_eq!(
            Line {
                number: 1,
                text: " 4 5 "
            }
            .parse_n::<usize>(2, "r c")
            .unwrap(),
            vec![4, 5]
        );
    }
}
