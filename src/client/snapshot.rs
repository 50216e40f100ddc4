//! Maintenance.Snapshot: a member's snapshot stream, written to a file as it comes.

use std::io::Write;
use std::path::Path;

use super::Client;
use crate::proto::etcdserverpb as pb;
use crate::proto::etcdserverpb::maintenance_client::MaintenanceClient;
use crate::workflow::{ApiError, ApiErrorKind};

impl Client {
    /// Streams the snapshot of the first endpoint that answers into `path`
    /// (through `path.part`, fsync'd, then renamed, as etcdctl does); returns
    /// the bytes written. A stream that ends early leaves no file.
    pub async fn snapshot_save(&self, path: &Path) -> Result<u64, ApiError> {
        let part = path.with_extension(match path.extension() {
            Some(e) => format!("{}.part", e.to_string_lossy()),
            None => "part".to_string(),
        });
        let io = |e: std::io::Error, what: &str| {
            ApiError::new(
                ApiErrorKind::Other,
                format!("cannot {what} {}: {e}", part.display()),
            )
        };
        let written = self
            .call(true, |ch| {
                let part = part.clone();
                async move {
                    let mut file = std::fs::File::create(&part).map_err(|e| {
                        tonic::Status::unknown(format!("cannot create {}: {e}", part.display()))
                    })?;
                    let mut stream = MaintenanceClient::new(ch)
                        .snapshot(pb::SnapshotRequest {})
                        .await?
                        .into_inner();
                    let mut n = 0u64;
                    while let Some(r) = stream.message().await? {
                        file.write_all(&r.blob).map_err(|e| {
                            tonic::Status::unknown(format!("cannot write {}: {e}", part.display()))
                        })?;
                        n += r.blob.len() as u64;
                    }
                    file.sync_all().map_err(|e| {
                        tonic::Status::unknown(format!("cannot sync {}: {e}", part.display()))
                    })?;
                    Ok(n)
                }
            })
            .await;
        let written = match written {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&part);
                return Err(e);
            }
        };
        std::fs::rename(&part, path).map_err(|e| io(e, "rename"))?;
        Ok(written)
    }
}
