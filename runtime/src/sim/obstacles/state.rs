//! What directives changed in a world's physical scene — obstacles placed (by id) and obstacles
//! removed (authored ones by their index in the frame-0 set, placed ones dropped) — and the
//! current set, rebuilt from the frame-0 set after each change. World state: snapshots carry
//! it and the state digest reads it (nothing while the scene never changed, so such worlds keep
//! their digests).

use std::sync::Arc;

use super::{Obstacle, ObstacleOrigin, ObstacleSet, SceneObstacle, AUTHORED_HEIGHT_M};

/// A world's scene changes and the current obstacle set.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneState {
    /// The set at frame 0 (the world configuration's).
    base: Arc<ObstacleSet>,
    /// Indices into the frame-0 set of the authored obstacles removed, ascending.
    removed: Vec<u32>,
    /// Obstacles placed by directives and not removed since, ascending by id.
    placed: Vec<(String, Obstacle)>,
    /// Changes so far (each place or remove that changed the scene).
    revision: u32,
    /// The current set (derived: the frame-0 set less `removed`, plus `placed`).
    current: Arc<ObstacleSet>,
}

impl SceneState {
    /// The scene of a world at frame 0.
    pub fn new(base: &Arc<ObstacleSet>) -> SceneState {
        SceneState {
            base: Arc::clone(base),
            removed: Vec::new(),
            placed: Vec::new(),
            revision: 0,
            current: Arc::clone(base),
        }
    }

    /// The state a snapshot file describes over the frame-0 set `base`: `removed` ascending
    /// and in range, `placed` ascending by id without repeats (`None` otherwise).
    pub(in crate::sim) fn restored(
        base: &Arc<ObstacleSet>,
        removed: Vec<u32>,
        placed: Vec<(String, Obstacle)>,
        revision: u32,
    ) -> Option<SceneState> {
        let count = base.obstacles().len();
        let removed_ok = removed.windows(2).all(|w| w[0] < w[1])
            && removed.iter().all(|i| (*i as usize) < count);
        let placed_ok = placed.windows(2).all(|w| w[0].0 < w[1].0);
        if !removed_ok
            || !placed_ok
            || (revision == 0 && !(removed.is_empty() && placed.is_empty()))
        {
            return None;
        }
        let mut scene = SceneState::new(base);
        scene.removed = removed;
        scene.placed = placed;
        if revision > 0 {
            // `rebuild` counts one change; start one below so the set has the saved revision.
            scene.revision = revision - 1;
            scene.rebuild();
        }
        Some(scene)
    }

    /// The removed indices, the placed obstacles and the revision (what a snapshot file holds;
    /// the sets follow from them and the world's frame-0 set).
    pub(in crate::sim) fn parts(&self) -> (&[u32], &[(String, Obstacle)], u32) {
        (&self.removed, &self.placed, self.revision)
    }

    /// The obstacles in the scene now.
    pub fn current(&self) -> &Arc<ObstacleSet> {
        &self.current
    }

    /// Places (or moves) obstacle `id` with `footprint`; a placed obstacle is unknown to
    /// navigation (only bodies meet it).
    pub fn place(&mut self, id: &str, footprint: Obstacle) {
        match self.placed.binary_search_by(|(p, _)| p.as_str().cmp(id)) {
            Ok(i) => self.placed[i].1 = footprint,
            Err(i) => self.placed.insert(i, (id.to_owned(), footprint)),
        }
        self.rebuild();
    }

    /// Removes every obstacle named `id` that is in the scene now (an authored scene object or
    /// barrier, or a placed obstacle); false when there is none.
    pub fn remove(&mut self, id: &str) -> bool {
        let mut changed = false;
        for (index, o) in self.base.obstacles().iter().enumerate() {
            let authored = matches!(
                &o.origin,
                ObstacleOrigin::Object(x) | ObstacleOrigin::Barrier(x) if x == id
            );
            let index = index as u32;
            if let (true, Err(at)) = (authored, self.removed.binary_search(&index)) {
                self.removed.insert(at, index);
                changed = true;
            }
        }
        if let Ok(i) = self.placed.binary_search_by(|(p, _)| p.as_str().cmp(id)) {
            self.placed.remove(i);
            changed = true;
        }
        if changed {
            self.rebuild();
        }
        changed
    }

    fn rebuild(&mut self) {
        self.revision = self.revision.wrapping_add(1);
        let mut obstacles: Vec<SceneObstacle> = self
            .base
            .obstacles()
            .iter()
            .enumerate()
            .filter(|(i, _)| self.removed.binary_search(&(*i as u32)).is_err())
            .map(|(_, o)| o.clone())
            .collect();
        obstacles.extend(self.placed.iter().map(|(id, footprint)| SceneObstacle {
            footprint: *footprint,
            height_m: AUTHORED_HEIGHT_M,
            in_navigation: false,
            origin: ObstacleOrigin::Placed(id.clone()),
        }));
        self.current = Arc::new(ObstacleSet::new(obstacles, self.revision));
    }

    /// Whether the state belongs to a world whose frame-0 set is `base` (a restore preflight).
    pub fn fits(&self, base: &ObstacleSet) -> bool {
        *self.base == *base
            && self
                .removed
                .iter()
                .all(|i| (*i as usize) < base.obstacles().len())
    }

    /// Canonical bytes: nothing while the scene never changed; then the revision, the removed
    /// indices and the placed obstacles (id and footprint, floats by their bits).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        if self.revision == 0 {
            return;
        }
        bytes.extend_from_slice(b"SCENE1");
        bytes.extend_from_slice(&self.revision.to_le_bytes());
        bytes.extend_from_slice(&(self.removed.len() as u64).to_le_bytes());
        for i in &self.removed {
            bytes.extend_from_slice(&i.to_le_bytes());
        }
        bytes.extend_from_slice(&(self.placed.len() as u64).to_le_bytes());
        for (id, footprint) in &self.placed {
            bytes.extend_from_slice(&(id.len() as u64).to_le_bytes());
            bytes.extend_from_slice(id.as_bytes());
            footprint.write_canonical(bytes);
        }
    }
}
