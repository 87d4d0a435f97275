//! The live service behind `eleusis serve`: the tablet page for the table, the God
//! console, the audit pages, a JSON API under `/api/` and live pushes on `/ws`.
//!
//! The web layer sends commands and renders state; it never decides anything.
//! Every event goes through the store's [`Recorder`](crate::store::recorder::Recorder)
//! on one desk thread ([`desk`]), so what the table sees is what `eleusis record`
//! would have stored, durable before the reply; the views are rebuilt from the
//! store and pushed to every page ([`views`]). Pages are plain HTML/CSS/JS from
//! `static/`, embedded in the binary ([`assets`]).

pub mod api;
pub mod assets;
pub mod auth;
pub mod desk;
pub mod error;
pub mod frames;
pub mod play_zone;
pub mod views;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use tokio::net::TcpListener;

use crate::store::history::{standard_referee, RefereeFactory};

pub use desk::{OpenError, Table};
pub use error::ApiError;
pub use frames::Camera;
pub use play_zone::ZoneWatch;

/// Largest request body accepted (a camera frame, in bytes).
pub const MAX_BODY: usize = 24 * 1024 * 1024;

/// Everything the handlers share.
pub struct AppState {
    pub table: Table,
    pub camera: Camera,
    /// The play-zone watcher fed by `POST /api/watch`.
    pub watch: ZoneWatch,
    /// The secret that opens the God console and God's routes.
    pub god_token: String,
}

/// Options of a service instance.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    pub db: PathBuf,
    /// Where the recognizer is loaded from; `None`: the default search path.
    pub models: Option<PathBuf>,
    /// The God token; `None`: a fresh random one.
    pub god_token: Option<String>,
    /// Load no recognizer at all (tests).
    pub no_recognizer: bool,
    /// A stricter confirmation threshold for the table's deck (`serve
    /// --confirm-threshold`); `None`: the model's own.
    pub confirm_threshold: Option<f32>,
    /// Every court card asks God (`serve --confirm-courts`): a deck whose court
    /// cards are not indexed J, Q, K.
    pub confirm_courts: bool,
}

/// A service ready to be served: its state and router.
pub struct Service {
    pub state: Arc<AppState>,
}

impl Service {
    /// Opens the store (continuing its latest game) and loads the recognizer.
    pub fn open(options: &ServiceOptions) -> Result<Service, OpenError> {
        Service::open_with(options, standard_referee())
    }

    /// [`Service::open`] with a chosen referee (tests may judge with closures).
    pub fn open_with(
        options: &ServiceOptions,
        factory: RefereeFactory,
    ) -> Result<Service, OpenError> {
        // The camera first: a confirmation threshold it refuses stops the service
        // before the store is created.
        let camera = if options.no_recognizer {
            Camera::none("no recognizer loaded (--no-recognizer)")
        } else {
            Camera::load(
                options.models.as_deref(),
                options.confirm_threshold,
                options.confirm_courts,
            )?
        };
        if options.models.is_some() && camera.recognizer.is_none() {
            return Err(OpenError::Models(camera.note));
        }
        let table = Table::open(&options.db, factory)?;
        let god_token = options
            .god_token
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(auth::fresh_token);
        Ok(Service {
            state: Arc::new(AppState {
                table,
                camera,
                watch: ZoneWatch::default(),
                god_token,
            }),
        })
    }

    /// The router of every page and API route.
    pub fn router(&self) -> Router {
        api::routes()
            .merge(assets::routes())
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .layer(axum::middleware::from_fn(auth::refuse_repeats))
            .layer(axum::middleware::from_fn(error::json_errors))
            .with_state(Arc::clone(&self.state))
    }

    /// Serves on `listener` until `shutdown` resolves, then lets the requests in
    /// flight finish and closes the store cleanly.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let router = self.router();
        let result = axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await;
        self.state.table.close();
        result
    }

    /// The URLs to print at start for a service listening on `addr`.
    pub fn urls(&self, addr: SocketAddr) -> Urls {
        let host = if addr.ip().is_unspecified() {
            format!("localhost:{}", addr.port())
        } else {
            addr.to_string()
        };
        Urls {
            tablet: format!("http://{host}/"),
            god: format!(
                "http://{host}/god?token={}",
                auth::in_query(&self.state.god_token)
            ),
            audit: format!("http://{host}/audit"),
        }
    }
}

/// Where the pages are.
#[derive(Debug, Clone)]
pub struct Urls {
    pub tablet: String,
    pub god: String,
    pub audit: String,
}
