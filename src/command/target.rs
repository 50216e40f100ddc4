//! `member apply`'s target from the command line (`--target NAME=URL,…`) or a
//! file (one `NAME=URL[,URL…]` a line, or JSON `{"members":[{"name","peer_urls"}]}`).

use std::path::Path;

use serde::Deserialize;

use crate::error::Error;
use crate::model::{PeerUrl, PeerUrls};
use crate::workflow::calc::apply_plan::TargetMember;

/// One `NAME=URL[,URL…]`.
fn parse_one(item: &str) -> Result<TargetMember, Error> {
    let Some((name, urls)) = item.split_once('=') else {
        return Err(Error::usage(format!(
            "target member {item:?} is not NAME=PEER_URL; write it as n4=http://10.0.0.4:2380"
        )));
    };
    Ok(TargetMember {
        name: name.trim().to_string(),
        peer_urls: urls.split(',').map(|u| PeerUrl::read(u.trim())).collect(),
    })
}

/// The target of `--target` (clap already split it at commas).
pub fn from_args(items: &[String]) -> Result<Vec<TargetMember>, Error> {
    items
        .iter()
        .filter(|i| !i.trim().is_empty())
        .map(|i| parse_one(i))
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    members: Vec<DocMember>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocMember {
    name: String,
    peer_urls: Vec<String>,
}

/// The target in `path`.
pub fn from_file(path: &Path) -> Result<Vec<TargetMember>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::usage(format!("cannot read --target-file {}: {e}", path.display())))?;
    if text.trim_start().starts_with('{') {
        let doc: Doc = serde_json::from_str(&text).map_err(|e| {
            Error::usage(format!(
                "--target-file {} is not a JSON document {{\"members\":[{{\"name\",\"peer_urls\"}}]}}: {e}",
                path.display()
            ))
        })?;
        return Ok(doc
            .members
            .into_iter()
            .map(|m| TargetMember {
                name: m.name,
                peer_urls: PeerUrls::read(&m.peer_urls),
            })
            .collect());
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(parse_one)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_from_arguments_lines_and_json() {
        let t = from_args(&["n1=http://a:1".into(), "n2=http://b:2".into()]).unwrap();
        assert_eq!(t[1].name, "n2");
        assert_eq!(t[1].peer_urls.texts(), vec!["http://b:2"]);
        assert!(from_args(&["n1".into()]).is_err());
        let d = tempfile::tempdir().unwrap();
        let lines = d.path().join("t.txt");
        std::fs::write(
            &lines,
            "# voters\nn1=http://a:1,http://a:3\n\nn2=http://b:2\n",
        )
        .unwrap();
        let t = from_file(&lines).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].peer_urls.len(), 2);
        let json = d.path().join("t.json");
        std::fs::write(
            &json,
            r#"{"members":[{"name":"n1","peer_urls":["http://a:1"]}]}"#,
        )
        .unwrap();
        assert_eq!(from_file(&json).unwrap()[0].name, "n1");
        std::fs::write(&json, r#"{"members":[{"name":"n1"}]}"#).unwrap();
        assert!(from_file(&json).is_err());
    }
}
