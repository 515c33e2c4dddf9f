//! Prints a model's Parameters table from its `params!` declaration, or rewrites every
//! table block of `docs/models/` and of the scenario-keys reference, `docs/scenarios.md`
//! (`--write`, from the repository root).
//!
//! `cargo run -p dcsim --example params -- dcqcn` | `-- --list` | `-- --write`

use dcsim::models::param_tables::{pages, replace, tables};

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "--list".into());
    match arg.as_str() {
        "--list" => {
            for (page, name, _) in tables() {
                println!("{name}\tdocs/models/{page}");
            }
        }
        "--write" => {
            for (page, name, table) in pages() {
                let path = format!("docs/{page}");
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
                let Some(new) = replace(&text, name, &table) else {
                    eprintln!("{path}: no block <!-- parameters: {name} -->");
                    std::process::exit(1);
                };
                if new != text {
                    std::fs::write(&path, new).unwrap_or_else(|e| panic!("{path}: {e}"));
                    println!("rewrote {name} in {path}");
                }
            }
        }
        name => match tables().into_iter().find(|t| t.1 == name) {
            Some((_, _, table)) => print!("{}", table.markdown()),
            None => {
                eprintln!("no declared model {name:?} (--list names them)");
                std::process::exit(1);
            }
        },
    }
}
