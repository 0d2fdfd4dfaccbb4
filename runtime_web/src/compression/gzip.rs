//! gzip's member header (RFC 1952, 2.3): written as browsers write it, read in any split
//! a byte at a time, so a header of any length keeps nothing but its position.

/// The header a compressor writes: the magic, deflate, no flags, no time, no extra flags, an
/// unknown OS (255), as Chrome's and Firefox's `CompressionStream` write it.
pub(super) const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

const FHCRC: u8 = 1 << 1;
const FEXTRA: u8 = 1 << 2;
const FNAME: u8 = 1 << 3;
const FCOMMENT: u8 = 1 << 4;
const RESERVED: u8 = 0xe0;

/// Where a header being read is.
#[derive(Default)]
pub(super) struct GzipHeader {
    /// Bytes of the fixed part read (up to 10), then past it.
    fixed: usize,
    flags: u8,
    /// The parts the flags ask for, each counting down what is left of it.
    part: Part,
}

#[derive(Default)]
enum Part {
    #[default]
    Fixed,
    /// The extra field's two length bytes (the low one once read).
    ExtraLength(Option<u8>),
    Extra(usize),
    /// A zero-terminated name or comment.
    Name,
    Comment,
    /// The header's CRC-16 (not checked, as zlib does by default): bytes left.
    Crc(usize),
    Done,
}

impl GzipHeader {
    /// Reads what it can of the header from `input`: how many bytes it took (all of them
    /// while the header goes on), or why the input is no gzip stream.
    pub(super) fn read(&mut self, input: &[u8]) -> Result<usize, &'static str> {
        let mut at = 0;
        while at < input.len() && !self.done() {
            let byte = input[at];
            at += 1;
            match &mut self.part {
                Part::Fixed => {
                    match (self.fixed, byte) {
                        (0, 0x1f) | (1, 0x8b) | (2, 8) => {}
                        (0 | 1, _) => return Err("not a gzip stream"),
                        (2, _) => return Err("a gzip stream of a method other than deflate"),
                        (3, flags) if flags & RESERVED != 0 => {
                            return Err("a gzip header with reserved flags set")
                        }
                        (3, flags) => self.flags = flags,
                        _ => {}
                    }
                    self.fixed += 1;
                    if self.fixed == 10 {
                        self.next_part(None);
                    }
                }
                Part::ExtraLength(None) => self.part = Part::ExtraLength(Some(byte)),
                Part::ExtraLength(Some(low)) => {
                    let length = usize::from(u16::from_le_bytes([*low, byte]));
                    self.part = Part::Extra(length);
                    if length == 0 {
                        self.next_part(Some(FEXTRA));
                    }
                }
                Part::Extra(left) => {
                    *left -= 1;
                    if *left == 0 {
                        self.next_part(Some(FEXTRA));
                    }
                }
                Part::Name if byte == 0 => self.next_part(Some(FNAME)),
                Part::Comment if byte == 0 => self.next_part(Some(FCOMMENT)),
                Part::Name | Part::Comment => {}
                Part::Crc(left) => {
                    *left -= 1;
                    if *left == 0 {
                        self.next_part(Some(FHCRC));
                    }
                }
                Part::Done => unreachable!("the loop stops at the header's end"),
            }
        }
        Ok(at)
    }

    /// Whether the whole header was read.
    pub(super) fn done(&self) -> bool {
        matches!(self.part, Part::Done)
    }

    /// The first part after `after`'s (none: after the fixed part) that the header's flags
    /// ask for, in the order the format puts them.
    fn next_part(&mut self, after: Option<u8>) {
        const ORDER: [u8; 4] = [FEXTRA, FNAME, FCOMMENT, FHCRC];
        let from = after.map_or(0, |flag| {
            ORDER
                .iter()
                .position(|&part| part == flag)
                .expect("a part's flag")
                + 1
        });
        self.part = match ORDER[from..].iter().find(|&&flag| self.flags & flag != 0) {
            Some(&FEXTRA) => Part::ExtraLength(None),
            Some(&FNAME) => Part::Name,
            Some(&FCOMMENT) => Part::Comment,
            Some(_) => Part::Crc(2),
            None => Part::Done,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `header` split at every point, and returns what each split's reads took.
    fn read_split(header: &[u8]) -> Vec<Result<usize, &'static str>> {
        (0..=header.len())
            .map(|split| {
                let mut reading = GzipHeader::default();
                let first = reading.read(&header[..split])?;
                let second = reading.read(&header[split..])?;
                assert!(reading.done(), "split at {split}");
                Ok(first + second)
            })
            .collect()
    }

    #[test]
    fn every_part_of_a_header_is_read_in_any_split() {
        let mut header = vec![
            0x1f,
            0x8b,
            8,
            FEXTRA | FNAME | FCOMMENT | FHCRC,
            0,
            0,
            0,
            0,
            0,
            3,
        ];
        header.extend_from_slice(&[3, 0, b'a', b'b', b'c']);
        header.extend_from_slice(b"name\0comment\0");
        header.extend_from_slice(&[0xaa, 0xbb]);
        let length = header.len();
        header.extend_from_slice(b"deflate data follows");
        for taken in read_split(&header[..length]) {
            assert_eq!(taken, Ok(length));
        }
        let mut reading = GzipHeader::default();
        assert_eq!(reading.read(&header), Ok(length));
    }

    #[test]
    fn the_plain_header_and_an_empty_extra_field_are_read() {
        assert!(read_split(&HEADER).iter().all(|taken| *taken == Ok(10)));
        let empty_extra = [0x1f, 0x8b, 8, FEXTRA, 0, 0, 0, 0, 0, 3, 0, 0];
        assert!(read_split(&empty_extra)
            .iter()
            .all(|taken| *taken == Ok(12)));
    }

    #[test]
    fn what_is_no_gzip_header_is_refused() {
        let refused = |bytes: &[u8]| GzipHeader::default().read(bytes).unwrap_err();
        assert_eq!(refused(&[0x1f, 0x8c]), "not a gzip stream");
        assert_eq!(
            refused(&[0x1f, 0x8b, 7]),
            "a gzip stream of a method other than deflate"
        );
        assert_eq!(
            refused(&[0x1f, 0x8b, 8, 0x20]),
            "a gzip header with reserved flags set"
        );
    }
}
