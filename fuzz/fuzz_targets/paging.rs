//! Paging through memories of every width of character from any offset and page size: a page
//! or a clear error, never a panic, and a page always ends on a character boundary.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use synapse::store::write::NewMemory;
use synapse::store::{Scope, Store};

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    ids: Vec<i64>,
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut store = Store::open(dir.path()).expect("a new store");
        let scope = Scope::project("fuzz");
        let mut ids = Vec::new();
        for body in ["a", "é€😀漢 mixed widths", &"x€".repeat(5_000), "last one"] {
            let memory = NewMemory {
                body: body.to_owned(),
                project: Some("fuzz".into()),
                ..NewMemory::default()
            };
            ids.push(store.remember(&memory, &[], &scope).expect("stored").id);
        }
        Mutex::new(Fixture {
            _dir: dir,
            store,
            ids,
        })
    })
}

fuzz_target!(|input: (u8, u32, u16)| {
    let (which, offset, page) = input;
    let f = fixture().lock().expect("one run at a time");
    let id = f.ids.get(usize::from(which) % (f.ids.len() + 1)).copied().unwrap_or(9_999);
    let scope = Scope::project("fuzz");
    if let Ok(Some(page)) = synapse::read::read(&f.store, &scope, id, offset as usize, usize::from(page)) {
        assert!(page.offset + page.body.len() <= page.total);
        if let Some(next) = page.next {
            assert_eq!(next, page.offset + page.body.len());
        }
    }
});
