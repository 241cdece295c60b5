//! The tests' one pseudo-random generator: xorshift64, a fixed stream from a seed,
//! enough to make inputs (no dependency, the same numbers on every machine).

pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    /// The next number of the stream, below `n` (> 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}
