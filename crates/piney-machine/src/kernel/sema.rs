//! Semaphores: CreateSema, DeleteSema, SignalSema, WaitSema, PollSema, ReferSemaStatus and their
//! interrupt-context variants. Waiters are released in FIFO order.

use std::collections::VecDeque;

use super::{Ret, ThreadState, WaitKind};
use crate::{Machine, MachineError};

/// One semaphore.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Sema {
    /// Current count.
    pub count: i32,
    /// Maximum count.
    pub max_count: i32,
    /// Count it was created with.
    pub init_count: i32,
    /// Attributes.
    pub attr: u32,
    /// Option word.
    pub option: u32,
    /// Waiting threads, first to be released first.
    pub waiters: VecDeque<u32>,
}

impl Machine {
    fn sema_mut(&mut self, id: u32) -> Option<&mut Sema> {
        self.kernel
            .semas
            .get_mut(id as usize)
            .and_then(Option::as_mut)
    }

    /// CreateSema(ee_sema_t *param): returns the id, or -1.
    pub(super) fn sys_create_sema(&mut self, param: u32) -> Result<Ret, MachineError> {
        // ee_sema_t: count, max_count, init_count, wait_threads, attr, option.
        let max_count = self.kread32(param.wrapping_add(4), "CreateSema")? as i32;
        let init_count = self.kread32(param.wrapping_add(8), "CreateSema")? as i32;
        let attr = self.kread32(param.wrapping_add(16), "CreateSema")?;
        let option = self.kread32(param.wrapping_add(20), "CreateSema")?;
        if init_count < 0 || max_count <= 0 {
            return Ok(Ret::V(-1));
        }
        let Some(id) = (1..super::MAX_SEMAS).find(|&i| self.kernel.semas[i].is_none()) else {
            return Ok(Ret::V(-1));
        };
        self.kernel.semas[id] = Some(Sema {
            count: init_count,
            max_count,
            init_count,
            attr,
            option,
            waiters: VecDeque::new(),
        });
        Ok(Ret::V(id as i32))
    }

    /// DeleteSema(id): every waiter's WaitSema returns -1.
    pub(super) fn sys_delete_sema(&mut self, id: u32) -> Ret {
        let Some(sema) = self
            .kernel
            .semas
            .get_mut(id as usize)
            .and_then(Option::take)
        else {
            return Ret::V(-1);
        };
        for w in sema.waiters {
            self.kernel.release_wait(w, -1);
        }
        Ret::V(id as i32)
    }

    /// SignalSema(id) / iSignalSema: release the first waiter, or count up (not past the
    /// maximum).
    pub(super) fn sys_signal_sema(&mut self, id: u32) -> Ret {
        let Some(sema) = self.sema_mut(id) else {
            return Ret::V(-1);
        };
        let first = sema.waiters.pop_front();
        if first.is_none() && sema.count < sema.max_count {
            sema.count += 1;
        }
        if let Some(w) = first {
            self.kernel.release_wait(w, id as i32);
        }
        Ret::V(id as i32)
    }

    /// WaitSema(id): take one count or wait for a signal. Returns the id (-1 if the semaphore is
    /// deleted while waiting).
    pub(super) fn sys_wait_sema(&mut self, id: u32, pc: u32) -> Result<Ret, MachineError> {
        let in_handler = self.kernel.in_handler();
        let cur = self.kernel.current;
        let Some(sema) = self.sema_mut(id) else {
            return Ok(Ret::V(-1));
        };
        if sema.count > 0 {
            sema.count -= 1;
            return Ok(Ret::V(id as i32));
        }
        let Some(cur) = cur.filter(|_| !in_handler) else {
            return Err(MachineError::Kernel {
                what: format!("WaitSema({id}) would block outside a thread"),
                pc,
            });
        };
        sema.waiters.push_back(cur);
        let t = self
            .kernel
            .thread_mut(cur)
            .expect("the current thread exists");
        // Waiting replaces the caller's state, a self-suspension included.
        t.state = ThreadState::Wait(WaitKind::Sema(id));
        t.suspended = false;
        self.kernel.unlink(cur);
        Ok(Ret::V(id as i32))
    }

    /// PollSema(id) / iPollSema: take one count if there is one, else -1.
    pub(super) fn sys_poll_sema(&mut self, id: u32) -> Ret {
        match self.sema_mut(id) {
            Some(s) if s.count > 0 => {
                s.count -= 1;
                Ret::V(id as i32)
            }
            _ => Ret::V(-1),
        }
    }

    /// ReferSemaStatus(id, ee_sema_t *st) / iReferSemaStatus.
    pub(super) fn sys_refer_sema(&mut self, id: u32, st: u32) -> Result<Ret, MachineError> {
        let Some(s) = self.sema_mut(id) else {
            return Ok(Ret::V(-1));
        };
        let words = [
            s.count as u32,
            s.max_count as u32,
            s.init_count as u32,
            s.waiters.len() as u32,
            s.attr,
            s.option,
        ];
        for (i, w) in words.iter().enumerate() {
            self.kwrite32(st.wrapping_add(4 * i as u32), *w, "ReferSemaStatus")?;
        }
        Ok(Ret::V(id as i32))
    }
}
