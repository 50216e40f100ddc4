//! CRC-32C (Castagnoli), the checksum etcd uses for its keyspace hashes
//! (HashKV) and for `snapshot status`.

/// CRC-32C (Castagnoli), as etcd hashes its keyspace.
pub struct Crc32c(u32);

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82f6_3b78
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

impl Crc32c {
    /// A new checksum.
    pub fn new() -> Self {
        Crc32c(!0)
    }

    /// A checksum that goes on from `crc`, the checksum of what came before
    /// (as Go's `crc32.Update`, with which etcd chains its log's records).
    pub fn resume(crc: u32) -> Self {
        Crc32c(!crc)
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut c = self.0;
        for b in bytes {
            c = CRC_TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    /// The checksum of what was added.
    pub fn finish(&self) -> u32 {
        !self.0
    }
}

impl Default for Crc32c {
    fn default() -> Self {
        Self::new()
    }
}
