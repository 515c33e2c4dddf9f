//! 32-bit words written out to an unnamed temporary file and read back in the order
//! they were written: where a long log keeps its rows while the run goes, so that they
//! do not add to the memory the world needs (the rates log of 100 ms of k = 16: 114.5
//! MiB). The file is removed as soon as it is made; the system frees it when it is
//! dropped.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// Words written per call: the bytes a write or read converts at a time.
const CHUNK: usize = 1 << 16;

/// One temporary file of words.
#[derive(Debug)]
pub struct Spill {
    file: File,
    words: usize,
    #[cfg(test)]
    full_at: usize,
}

impl Spill {
    /// A new file in the system's temporary directory (`TMPDIR`); `None` if none can be
    /// made (the log then keeps its rows in memory).
    pub fn new() -> Option<Spill> {
        static MADE: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        for _ in 0..4 {
            let n = MADE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".dcsim-log-{}-{n}", std::process::id()));
            let Ok(file) = OpenOptions::new().read(true).write(true).create_new(true).open(&path) else {
                continue;
            };
            // Unlinked at once: nothing is left behind, whatever ends the process.
            let _ = std::fs::remove_file(&path);
            return Some(Spill {
                file,
                words: 0,
                #[cfg(test)]
                full_at: usize::MAX,
            });
        }
        None
    }

    /// A file whose writes fail once it would hold more than `words`, as on a full disk
    /// (tests).
    #[cfg(test)]
    pub fn full_at(words: usize) -> Spill {
        Spill { full_at: words, ..Spill::new().expect("a temporary file") }
    }

    /// Words written so far.
    pub fn len(&self) -> usize {
        self.words
    }

    pub fn is_empty(&self) -> bool {
        self.words == 0
    }

    /// Appends `words`. On an error (a full disk) the file may hold part of them, which
    /// `len` does not count and `read_into` does not read (the next write would come
    /// after them: a file that failed is not written again).
    pub fn write(&mut self, words: &[u32]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(4 * CHUNK.min(words.len()));
        let before = self.words;
        for part in words.chunks(CHUNK) {
            bytes.clear();
            bytes.extend(part.iter().flat_map(|w| w.to_le_bytes()));
            if let Err(e) = self.put(&bytes) {
                self.words = before;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes whole words' bytes at the end and counts them.
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        #[cfg(test)]
        if self.words + bytes.len() / 4 > self.full_at {
            // Part of them written, as a full disk leaves it.
            self.file.write_all(&bytes[..bytes.len().min(5)])?;
            return Err(std::io::ErrorKind::StorageFull.into());
        }
        self.file.write_all(bytes)?;
        self.words += bytes.len() / 4;
        Ok(())
    }

    /// Appends every word of `from` to this file, a chunk at a time; on an error this
    /// file is left as it was.
    pub fn append_from(&mut self, from: &mut Spill) -> std::io::Result<()> {
        let before = self.words;
        let result = from.read_chunks(|bytes| self.put(bytes));
        if result.is_err() {
            self.words = before;
            self.file.set_len(4 * before as u64)?;
            self.file.seek(SeekFrom::End(0))?;
        }
        result
    }

    /// Appends every word written, in order, to `out`.
    pub fn read_into(&mut self, out: &mut Vec<u32>) -> std::io::Result<()> {
        self.read_chunks(|bytes| {
            out.extend(bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            Ok(())
        })
    }

    /// Hands every word written to `f` as bytes, a chunk at a time, and leaves the file
    /// at its end for the next write.
    fn read_chunks(&mut self, mut f: impl FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut bytes = vec![0u8; 4 * CHUNK];
        let mut left = self.words;
        while left > 0 {
            let n = left.min(CHUNK);
            self.file.read_exact(&mut bytes[..4 * n])?;
            f(&bytes[..4 * n])?;
            left -= n;
        }
        self.file.seek(SeekFrom::End(0)).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words come back in the order written, across chunks and writes.
    #[test]
    fn words_come_back_in_order() {
        let mut s = Spill::new().expect("a temporary file");
        let words: Vec<u32> = (0..(3 * CHUNK as u32 + 7)).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        s.write(&words[..5]).unwrap();
        s.write(&words[5..]).unwrap();
        assert_eq!(s.len(), words.len());
        let mut out = vec![42];
        s.read_into(&mut out).unwrap();
        assert_eq!((out[0], &out[1..]), (42, &words[..]));
        // Read twice, and written after a read.
        s.write(&[1, 2]).unwrap();
        let mut again = Vec::new();
        s.read_into(&mut again).unwrap();
        assert_eq!((&again[..words.len()], &again[words.len()..]), (&words[..], &[1u32, 2][..]));
        // One file's words after another's.
        let mut t = Spill::new().expect("a temporary file");
        t.write(&[7, 8, 9]).unwrap();
        t.append_from(&mut s).unwrap();
        let mut both = Vec::new();
        t.read_into(&mut both).unwrap();
        assert_eq!((&both[..3], &both[3..]), (&[7u32, 8, 9][..], &again[..]));
    }
}
