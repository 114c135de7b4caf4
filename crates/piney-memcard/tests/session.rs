//! Save states of MCMAN's state over a card (`Card::session` / `Card::restore`): a card with a
//! current directory, files and directories open (one of them under a directory renamed since
//! it was opened) and a listing half read, its session put back on a copy of the card taken at
//! that moment, must answer every later call as the original does and leave the same bytes; a
//! session whose file is gone is refused naming it, with nothing changed.

mod common;

use common::*;
use piney_memcard::{
    Card, CardSession, FileHandle, McError, OpenFlags, SavedHandle, Whence, open_card,
};
use std::fs;
use std::path::Path;

/// A copy of a card (a folder card's tree, or an image file).
fn copy_card(from: &Path, to: &Path) {
    if from.is_dir() {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_card(&e.path(), &to.join(e.file_name()));
        }
    } else {
        fs::copy(from, to).unwrap();
    }
}

/// Every file of a card, by path, with its bytes.
fn contents(card: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if card.is_dir() {
        let mut es: Vec<_> = fs::read_dir(card).unwrap().map(|e| e.unwrap()).collect();
        es.sort_by_key(|e| e.file_name());
        for e in es {
            for (p, b) in contents(&e.path()) {
                out.push((format!("{}/{p}", e.file_name().to_string_lossy()), b));
            }
        }
    } else {
        out.push((String::new(), fs::read(card).unwrap()));
    }
    out
}

/// The card at `path` with state worth saving (MCMAN's three handles in use): the current
/// directory /SAVE/GAME, /SAVE/GAME/a open for reading and writing (written, not flushed, read
/// from), the directory SAVE/GAME open as an entry and /SAVE as itself ("/SAVE/."), a listing
/// of /SAVE/GAME/* three entries in; then /SAVE/GAME renamed /SAVE/PLAY under its open
/// handles. Returns the card and its handles.
fn busy_card(path: &Path) -> (Box<dyn Card>, [FileHandle; 3]) {
    let mut c = open_card(path, t(0)).unwrap();
    c.mkdir(b"/SAVE", t(1)).unwrap();
    c.mkdir(b"/SAVE/GAME", t(1)).unwrap();
    assert_eq!(c.chdir(b"/SAVE/GAME").unwrap(), b"/SAVE/GAME");
    let w = c
        .open(b"a", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    assert_eq!(c.write(w, &[7; 300], t(3)).unwrap(), 300);
    let b = c
        .open(b"b", OpenFlags::CREATE | OpenFlags::WRONLY, t(2))
        .unwrap();
    c.close(b, t(3)).unwrap();
    assert_eq!(c.seek(w, 20, Whence::Set).unwrap(), 20);
    let mut buf = [0; 10];
    assert_eq!(c.read(w, &mut buf).unwrap(), 10);
    let d = c.open(b"../GAME", OpenFlags::RDONLY, t(4)).unwrap();
    let own = c.open(b"/SAVE/.", OpenFlags::RDONLY, t(4)).unwrap();
    assert_eq!(
        names(&c.getdir(b"/SAVE/GAME/*", 3).unwrap()),
        [".", "..", "a"]
    );
    c.rename(b"/SAVE/GAME", b"PLAY").unwrap();
    (c, [w, d, own])
}

/// What the rest of a run does with the busy card: every result, in order.
fn rest(c: &mut dyn Card, [w, d, own]: [FileHandle; 3]) -> Vec<String> {
    let mut out = Vec::new();
    let mut log = |s: String| out.push(s);
    log(format!("{:?}", c.chdir(b"")));
    log(format!("{:?}", c.write(w, &[9; 50], t(10))));
    log(format!("{:?}", c.seek(w, 0, Whence::Cur)));
    log(format!("{:?}", c.seek(w, 20, Whence::Set)));
    let mut buf = [0; 400];
    let n = c.read(w, &mut buf);
    log(format!("{n:?} {:?}", &buf[..*n.as_ref().unwrap_or(&0)]));
    log(format!("{:?}", c.getdir_continue(5).map(|l| names(&l))));
    log(format!("{:?}", c.seek(d, 0, Whence::Set)));
    log(format!("{:?}", c.close(own, t(11))));
    // The relative path starts at the renamed current directory.
    log(format!("{:?}", c.open(b"b", OpenFlags::RDONLY, t(11))));
    log(format!("{:?}", c.close(w, t(12))));
    log(format!("{:?}", c.close(d, t(12))));
    log(format!(
        "{:?}",
        c.getdir(b"/SAVE/PLAY/*", 9).map(|l| names(&l))
    ));
    out
}

fn session_round_trip(name: &str) {
    let dir = scratch(&format!("session_{name}"));
    let (first, second, gone) = (dir.join(name), dir.join("copy"), dir.join("gone"));
    let (first, second, gone) = if name.ends_with(".ps2") {
        (
            first,
            second.with_extension("ps2"),
            gone.with_extension("ps2"),
        )
    } else {
        (first, second, gone)
    };
    let (mut c, handles) = busy_card(&first);
    let s = c.session();
    assert_eq!(s.cwd, [b"SAVE".to_vec(), b"PLAY".to_vec()]);
    let files: Vec<Vec<u8>> = s.handles.iter().map(SavedHandle::path).collect();
    assert_eq!(
        files,
        [
            b"/SAVE/PLAY/a".to_vec(),
            b"/SAVE/PLAY".to_vec(),
            b"/SAVE/.".to_vec()
        ]
    );
    assert!(!s.is_fresh() && CardSession::default().is_fresh());
    // The moment of the save, twice: one copy goes on, one loses a file.
    copy_card(&first, &second);
    copy_card(&first, &gone);

    let mut loaded = open_card(&second, t(0)).unwrap();
    loaded.restore(&s).unwrap();
    assert_eq!(loaded.session(), s);
    let expected = rest(c.as_mut(), handles);
    assert_eq!(rest(loaded.as_mut(), handles), expected);
    drop((c, loaded));
    assert_eq!(contents(&second), contents(&first));

    // The open file deleted on the card (through a fresh run's card): refused, nothing set.
    let mut other = open_card(&gone, t(0)).unwrap();
    other.close(FileHandle(0), t(5)).ok();
    other.delete(b"/SAVE/PLAY/a").unwrap();
    drop(other);
    let mut refused = open_card(&gone, t(0)).unwrap();
    let e = refused.restore(&s).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the open file /SAVE/PLAY/a cannot be found on the card again: {}",
            McError::NoEntry
        )
    );
    assert_eq!(refused.session(), CardSession::default());
    assert_eq!(refused.chdir(b"").unwrap(), b"/");
}

#[test]
fn a_folder_cards_session_is_restored() {
    session_round_trip("Mcd001");
}

#[test]
fn an_image_cards_session_is_restored() {
    session_round_trip("Mcd001.ps2");
}
