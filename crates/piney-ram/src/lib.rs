//! Guest RAM that compiled code reaches without masking the segment bits off an address.
//!
//! The PS2 kernel's map shows RDRAM at four places: `0x0000_0000` (KUSEG), `0x2000_0000` (the
//! uncached mirror), `0x8000_0000` (KSEG0) and `0xa000_0000` (KSEG1); the physical address is
//! `addr & 0x1fff_ffff`. A [`GuestRam`] made by [`GuestRam::new`] on Linux maps the same memory
//! (a memfd) at those four offsets of a 4 GiB reservation, so that host `base + addr` is the
//! byte for every such `addr` and the recompiler's RAM path needs no `and` before the access
//! (one operation fewer on every load's address, often on a loop's critical path). Elsewhere,
//! or when the kernel refuses, it is plain heap memory and [`GuestRam::mirrored`] says so; the
//! recompiler then masks as before. Either way it reads as one `[u8]` of the RAM's size, zeroed
//! at first.

use std::ops::{Deref, DerefMut};

/// The four segments where RAM shows, as offsets from its first byte in the window.
pub const MIRRORS: [usize; 4] = [0, 0x2000_0000, 0x8000_0000, 0xa000_0000];

/// Guest RAM (see the module's documentation).
pub struct GuestRam {
    backing: Backing,
}

enum Backing {
    Heap(Box<[u8]>),
    #[cfg(target_os = "linux")]
    Mirrored(mirror::Window),
}

impl GuestRam {
    /// `len` zeroed bytes, mirrored where the host allows (`len` at most 512 MiB, a segment).
    pub fn new(len: usize) -> Self {
        #[cfg(target_os = "linux")]
        if let Some(w) = mirror::Window::map(len) {
            return Self {
                backing: Backing::Mirrored(w),
            };
        }
        Self::heap(len)
    }

    /// `len` zeroed bytes on the heap, never mirrored.
    pub fn heap(len: usize) -> Self {
        Self {
            backing: Backing::Heap(vec![0; len].into_boxed_slice()),
        }
    }

    /// Whether byte `p` also shows at `as_ptr() + m + p` for every `m` of [`MIRRORS`].
    pub fn mirrored(&self) -> bool {
        match self.backing {
            Backing::Heap(_) => false,
            #[cfg(target_os = "linux")]
            Backing::Mirrored(_) => true,
        }
    }
}

impl Clone for GuestRam {
    /// A copy of the bytes, mirrored when this one is (and the host still allows).
    fn clone(&self) -> Self {
        let mut r = if self.mirrored() {
            Self::new(self.len())
        } else {
            Self::heap(self.len())
        };
        r.copy_from_slice(self);
        r
    }
}

impl PartialEq for GuestRam {
    /// The same bytes (mirrored or not).
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl Eq for GuestRam {}

impl Default for GuestRam {
    /// No bytes (nothing allocated).
    fn default() -> Self {
        Self::heap(0)
    }
}

impl From<Vec<u8>> for GuestRam {
    /// Those bytes, on the heap.
    fn from(v: Vec<u8>) -> Self {
        Self {
            backing: Backing::Heap(v.into_boxed_slice()),
        }
    }
}

impl Deref for GuestRam {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.backing {
            Backing::Heap(b) => b,
            #[cfg(target_os = "linux")]
            Backing::Mirrored(w) => w.bytes(),
        }
    }
}

impl DerefMut for GuestRam {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.backing {
            Backing::Heap(b) => b,
            #[cfg(target_os = "linux")]
            Backing::Mirrored(w) => w.bytes_mut(),
        }
    }
}

impl std::fmt::Debug for GuestRam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestRam")
            .field("len", &self.len())
            .field("mirrored", &self.mirrored())
            .finish()
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
// Allowed: mapping one memfd at four fixed places of a reservation (mmap, munmap) and viewing
// the first as a slice. The window is this value's alone, unmapped once, when it drops.
mod mirror {
    use super::MIRRORS;

    /// The reservation: from `MIRRORS[0]` to past the last mirror.
    const WINDOW: usize = 0x1_0000_0000;

    /// Four views of one memfd in a reservation of its own.
    pub struct Window {
        base: *mut u8,
        len: usize,
    }

    // The window is plain memory owned by this value (no thread-local state): moved to another
    // thread, it is used there alone, as a `Box<[u8]>` would be.
    unsafe impl Send for Window {}
    // Shared references only read, as `&[u8]`.
    unsafe impl Sync for Window {}

    impl Window {
        /// `len` zeroed bytes shown at each of [`MIRRORS`]; `None` when the host says no.
        pub fn map(len: usize) -> Option<Self> {
            if len == 0 || len > MIRRORS[1] {
                return None;
            }
            // SAFETY: plain system calls on a descriptor and a reservation made here; every
            // fixed mapping lies inside the reservation, which nothing else uses.
            unsafe {
                let fd = libc::memfd_create(c"piney-ee-ram".as_ptr(), libc::MFD_CLOEXEC);
                if fd < 0 {
                    return None;
                }
                let ok = libc::ftruncate(fd, len as libc::off_t) == 0;
                let base = if ok {
                    libc::mmap(
                        std::ptr::null_mut(),
                        WINDOW,
                        libc::PROT_NONE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                        -1,
                        0,
                    )
                } else {
                    libc::MAP_FAILED
                };
                let mut mapped = base != libc::MAP_FAILED;
                for m in MIRRORS {
                    if mapped {
                        let at = base.cast::<u8>().add(m).cast();
                        let p = libc::mmap(
                            at,
                            len,
                            libc::PROT_READ | libc::PROT_WRITE,
                            libc::MAP_SHARED | libc::MAP_FIXED,
                            fd,
                            0,
                        );
                        mapped = p == at;
                    }
                }
                // The mappings hold the file; the descriptor is not needed any more.
                libc::close(fd);
                if !mapped {
                    if base != libc::MAP_FAILED {
                        libc::munmap(base, WINDOW);
                    }
                    return None;
                }
                Some(Self {
                    base: base.cast(),
                    len,
                })
            }
        }

        pub fn bytes(&self) -> &[u8] {
            // SAFETY: `len` bytes mapped readable and writable at `base` while `self` lives.
            unsafe { std::slice::from_raw_parts(self.base, self.len) }
        }

        pub fn bytes_mut(&mut self) -> &mut [u8] {
            // SAFETY: as `bytes`; `&mut self` makes this the only view handed out.
            unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
        }
    }

    impl Drop for Window {
        fn drop(&mut self) {
            // SAFETY: the reservation made in `map`, with the mirrors inside it.
            unsafe {
                libc::munmap(self.base.cast(), WINDOW);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_zeroed_and_reads_as_one_slice_either_way() {
        for ram in [GuestRam::new(1 << 20), GuestRam::heap(1 << 20)] {
            assert_eq!(ram.len(), 1 << 20);
            assert!(ram.iter().all(|&b| b == 0));
        }
        assert!(!GuestRam::heap(16).mirrored());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_write_shows_in_every_mirror() {
        let mut ram = GuestRam::new(32 << 20);
        assert!(ram.mirrored(), "memfd mirrors are available on Linux");
        let base = ram.as_mut_ptr();
        for (k, m) in MIRRORS.iter().enumerate() {
            let p = 0x1f_fff0 + k;
            // SAFETY (test): the window maps each mirror over the RAM's length.
            #[allow(unsafe_code)]
            // Allowed: the test writes through one mirror of the window it checks.
            unsafe {
                base.add(m + p).write(0xa0 + k as u8);
            }
            assert_eq!(ram[p], 0xa0 + k as u8);
            for n in MIRRORS {
                // SAFETY (test): as above.
                #[allow(unsafe_code)]
                // Allowed: reading back through every mirror.
                let v = unsafe { base.add(n + p).read() };
                assert_eq!(v, 0xa0 + k as u8);
            }
        }
        // The last byte of the last mirror is mapped too.
        ram[(32 << 20) - 1] = 7;
        #[allow(unsafe_code)]
        // Allowed: reading the last mirror's last byte.
        let v = unsafe { base.add(MIRRORS[3] + (32 << 20) - 1).read() };
        assert_eq!(v, 7);
    }

    #[test]
    fn clones_copy_the_bytes_and_the_mirroring() {
        let mut a = GuestRam::new(4096);
        a[100] = 5;
        let b = a.clone();
        assert_eq!(b[100], 5);
        assert_eq!(a, b);
        assert_eq!(b.mirrored(), a.mirrored());
        a[100] = 6;
        assert_ne!(a, b, "a copy, not a view");
        let h = GuestRam::from(vec![1, 2, 3]);
        assert!(!h.clone().mirrored());
        assert_eq!(&h.clone()[..], &[1, 2, 3]);
        assert!(GuestRam::default().is_empty());
    }

    #[test]
    fn many_live_at_once_and_go() {
        // Each holds a 4 GiB reservation of address space (no memory): 64 machines' worth at
        // once are still mirrored, and their windows go when they drop (the next 64 too).
        for _ in 0..2 {
            let rams: Vec<GuestRam> = (0..64).map(|_| GuestRam::new(32 << 20)).collect();
            assert!(rams.iter().all(|r| r.len() == 32 << 20));
            #[cfg(target_os = "linux")]
            assert!(rams.iter().all(GuestRam::mirrored));
        }
    }
}
