//! Tests of the grid mission solver, playability, NPC placement and daily seeds.

use super::*;
use crate::content::DailyKey;

fn chunk(id: &str, role: ChunkRole) -> ChunkDefinition {
    ChunkDefinition::new(id, role, false)
}

fn library() -> Vec<ChunkDefinition> {
    vec![
        chunk("tactical/spawn-yard", ChunkRole::Spawn),
        chunk("tactical/objective-vault", ChunkRole::Objective),
        chunk("tactical/objective-office", ChunkRole::Objective),
        chunk("tactical/extraction-dock", ChunkRole::Extraction),
        chunk("tactical/hallway", ChunkRole::Connector),
        chunk("tactical/courtyard", ChunkRole::Encounter),
        chunk("tactical/tower", ChunkRole::Landmark),
        chunk("tactical/wall", ChunkRole::Blocker),
        chunk("tactical/rubble", ChunkRole::Blocker),
    ]
}

/// A tactical cell: 6×5, three objectives, 15 % blockers.
fn tactical(seed: u64) -> MissionRequest {
    MissionRequest {
        seed,
        width: 6,
        height: 5,
        objective_count: 3,
        min_extraction_distance: 5,
        min_objective_distance: 2,
        blocker_density_permille: 150,
        min_npc_cells: 8,
        max_attempts: 16,
        min_critical_path_steps: 0,
        chunk_library: library(),
    }
}

fn solve(request: &MissionRequest) -> MissionLayout {
    solve_mission(request).unwrap_or_else(|e| panic!("{e}: {e:?}"))
}

/// Checks every invariant a solved layout promises.
fn check_layout(request: &MissionRequest, layout: &MissionLayout) {
    assert_eq!(layout.spawn.x, 0, "spawn on the west edge");
    assert_eq!(
        layout.extraction.x,
        request.width - 1,
        "extraction on the east edge"
    );
    assert!(layout.spawn.manhattan(layout.extraction) >= request.min_extraction_distance);
    assert_eq!(layout.objectives.len() as u32, request.objective_count);
    for objective in &layout.objectives {
        assert!(objective.manhattan(layout.spawn) >= request.min_objective_distance);
        assert_eq!(
            layout.chunk_at(*objective).map(|c| c.role),
            Some(ChunkRole::Objective)
        );
    }
    assert_eq!(layout.chunks.len() as u32, request.width * request.height);
    assert!(
        layout.chunks.windows(2).all(|w| w[0].cell < w[1].cell),
        "row-major"
    );
    for chunk in &layout.chunks {
        assert_eq!(chunk.blocks_traversal, chunk.role == ChunkRole::Blocker);
        let definition = request
            .chunk_library
            .iter()
            .find(|c| c.id == chunk.chunk_id);
        assert_eq!(definition.map(|c| c.role), Some(chunk.role));
    }
    // The bot path starts at spawn, ends at extraction, visits every objective in order, steps
    // between 4-neighbours and never enters a wall.
    let path = &layout.bot_path;
    assert_eq!(path.first(), Some(&layout.spawn));
    assert_eq!(path.last(), Some(&layout.extraction));
    assert!(path.windows(2).all(|w| w[0].manhattan(w[1]) == 1));
    assert!(path
        .iter()
        .all(|c| layout.chunk_at(*c).is_some_and(|c| !c.blocks_traversal)));
    let mut position = 0;
    for objective in &layout.objectives {
        let found = path[position..].iter().position(|c| c == objective);
        position += found.unwrap_or_else(|| panic!("objective {objective:?} not visited in order"));
    }
    assert_eq!(validate_playability(layout).as_ref(), Ok(path));
    let npc = validate_npc_placement(layout, request.min_npc_cells);
    assert_eq!(
        npc.as_ref(),
        Ok(&layout.npc_cells),
        "the count mirrors the list"
    );
    assert!(layout.npc_cells.len() as u32 >= request.min_npc_cells);
    assert!(
        !layout.npc_cells.contains(&layout.spawn) && !layout.npc_cells.contains(&layout.extraction)
    );
}

#[test]
fn tactical_layouts_are_playable_and_complete() {
    for seed in 0..40 {
        let request = tactical(seed);
        let layout = solve(&request);
        check_layout(&request, &layout);
        assert_eq!(layout.attempt_seed, attempt_seed(seed, layout.attempt));
    }
}

#[test]
fn identical_requests_give_identical_signatures() {
    let first = solve(&tactical(1234));
    let second = solve(&tactical(1234));
    assert_eq!(first, second);
    assert_eq!(first.signature(), second.signature());
    assert!(first.signature().starts_with("seed=1234;"));
    assert_ne!(first.signature(), solve(&tactical(1235)).signature());
}

/// The pinned signature digest of one request. Update deliberately: a change here changes every
/// mission generated from a saved seed.
#[test]
fn golden_signature_is_pinned() {
    let layout = solve(&tactical(424_242));
    let digest = blake3::hash(layout.signature().as_bytes())
        .to_hex()
        .to_string();
    assert_eq!(digest, GOLDEN_SIGNATURE_DIGEST, "{}", layout.signature());
}

const GOLDEN_SIGNATURE_DIGEST: &str =
    "f7605ad6d71fec00f7cc3392caf91c6a832d9cbe58c9d11007d0e8716cc53d79";

#[test]
fn a_walled_3x3_layout_is_rejected() {
    // Column 1 is a wall: spawn (0, 1) cannot reach extraction (2, 1).
    let mut grid = TraversalGrid::new(3, 3).unwrap_or_else(|e| panic!("{e}"));
    for y in 0..3 {
        grid.set_wall(GridCell::new(1, y), true);
    }
    let (spawn, extraction) = (GridCell::new(0, 1), GridCell::new(2, 1));
    assert_eq!(
        find_path_through_waypoints(&grid, &[spawn, extraction]),
        Err(PlayabilityFailure::Unreachable {
            segment: 0,
            from: spawn,
            to: extraction
        })
    );
    // The same layout as a product is rejected by both validators.
    let mut chunks = Vec::new();
    for y in 0..3 {
        for x in 0..3 {
            let cell = GridCell::new(x, y);
            let role = match (x, y) {
                (1, _) => ChunkRole::Blocker,
                (0, 1) => ChunkRole::Spawn,
                (2, 1) => ChunkRole::Extraction,
                _ => ChunkRole::Connector,
            };
            chunks.push(MissionChunk {
                cell,
                role,
                chunk_id: role.name().to_owned(),
                blocks_traversal: role == ChunkRole::Blocker,
                npc_spawn_tag: false,
            });
        }
    }
    let layout = MissionLayout {
        seed: 0,
        attempt: 0,
        attempt_seed: 0,
        width: 3,
        height: 3,
        spawn,
        extraction,
        objectives: vec![],
        chunks,
        bot_path: vec![],
        npc_cells: vec![],
        daily: None,
    };
    let failure = validate_playability(&layout);
    assert!(matches!(
        failure,
        Err(PlayabilityFailure::Unreachable { segment: 0, .. })
    ));
    assert!(matches!(
        validate_npc_placement(&layout, 0),
        Err(NpcPlacementFailure::Unplayable(_))
    ));
    // Opening one cell of the wall makes it playable, through that cell.
    let mut open = layout.clone();
    open.chunks[7].role = ChunkRole::Connector;
    open.chunks[7].blocks_traversal = false;
    let path = validate_playability(&open).unwrap_or_else(|e| panic!("{e}"));
    assert!(path.contains(&GridCell::new(1, 2)));
    assert_eq!(validate_npc_placement(&open, 5).map(|c| c.len()), Ok(5));
    assert_eq!(
        validate_npc_placement(&open, 6),
        Err(NpcPlacementFailure::TooFew {
            found: 5,
            required: 6
        })
    );
    // Oversized grids, blocked and out-of-grid waypoints are their own reasons.
    assert_eq!(
        TraversalGrid::new(65, 1),
        Err(PlayabilityFailure::GridSize {
            width: 65,
            height: 1
        })
    );
    assert_eq!(
        find_path_through_waypoints(&grid, &[GridCell::new(1, 0)]),
        Err(PlayabilityFailure::WaypointBlocked {
            cell: GridCell::new(1, 0)
        })
    );
    assert_eq!(
        find_path_through_waypoints(&grid, &[GridCell::new(3, 0)]),
        Err(PlayabilityFailure::WaypointOutside {
            cell: GridCell::new(3, 0)
        })
    );
}

#[test]
fn dense_blockers_never_wall_off_the_mission() {
    for seed in 0..30 {
        let request = MissionRequest {
            blocker_density_permille: 900,
            min_npc_cells: 0,
            ..tactical(seed)
        };
        let layout = solve(&request);
        check_layout(&request, &layout);
        let blockers = layout.chunks.iter().filter(|c| c.blocks_traversal).count();
        assert!(blockers > 0, "seed {seed} kept some blockers");
    }
}

#[test]
fn failed_attempts_perturb_the_next_and_are_reported() {
    // Spawn (0, a) and extraction (1, b) on a 2×6 grid need |a − b| = 5: most attempts fail.
    let request = MissionRequest {
        width: 2,
        height: 6,
        objective_count: 0,
        min_extraction_distance: 6,
        min_objective_distance: 0,
        blocker_density_permille: 0,
        min_npc_cells: 0,
        max_attempts: MAX_ATTEMPTS,
        ..tactical(0)
    };
    let retried = (0..20u64).find_map(|seed| {
        let layout = solve_mission(&MissionRequest {
            seed,
            ..request.clone()
        })
        .ok()?;
        (layout.attempt > 0).then_some(layout)
    });
    let layout = retried.unwrap_or_else(|| panic!("some seed needed a retry"));
    assert_eq!(
        layout.attempt_seed,
        layout.seed + u64::from(layout.attempt) * 7919
    );
    assert_eq!(layout.spawn.manhattan(layout.extraction), 6);

    let impossible = MissionRequest {
        min_extraction_distance: 100,
        max_attempts: 3,
        ..tactical(9)
    };
    match solve_mission(&impossible) {
        Err(MissionError::Unsolved { attempts }) => {
            assert_eq!(attempts.len(), 3);
            assert!(attempts
                .iter()
                .all(|a| matches!(a, AttemptFailure::ExtractionTooClose { minimum: 100, .. })));
        }
        other => panic!("expected Unsolved, got {other:?}"),
    }
    let too_far = MissionRequest {
        min_objective_distance: 50,
        max_attempts: 2,
        ..tactical(9)
    };
    assert_eq!(
        solve_mission(&too_far),
        Err(MissionError::Unsolved {
            attempts: vec![AttemptFailure::NoObjectiveCell { objective: 0 }; 2]
        })
    );
    let crowded = MissionRequest {
        min_npc_cells: 31,
        max_attempts: 1,
        ..tactical(9)
    };
    assert!(matches!(
        solve_mission(&crowded),
        Err(MissionError::Unsolved { attempts }) if matches!(attempts[..], [AttemptFailure::NotEnoughNpcCells { required: 31, .. }])
    ));
}

#[test]
fn invalid_requests_are_rejected_before_any_attempt() {
    let check = |mutate: fn(&mut MissionRequest), expected: MissionError| {
        let mut request = tactical(1);
        mutate(&mut request);
        assert_eq!(solve_mission(&request), Err(expected));
    };
    check(
        |r| r.width = 1,
        MissionError::GridSize {
            width: 1,
            height: 5,
        },
    );
    check(
        |r| r.height = 65,
        MissionError::GridSize {
            width: 6,
            height: 65,
        },
    );
    check(
        |r| r.objective_count = 33,
        MissionError::TooManyObjectives { count: 33 },
    );
    check(
        |r| r.blocker_density_permille = 1001,
        MissionError::BlockerDensity { permille: 1001 },
    );
    check(
        |r| r.max_attempts = 0,
        MissionError::Attempts { max_attempts: 0 },
    );
    check(
        |r| {
            r.chunk_library
                .push(chunk("tactical/wall", ChunkRole::Blocker))
        },
        MissionError::ChunkId {
            id: "tactical/wall".into(),
        },
    );
    check(
        |r| r.chunk_library.push(chunk("", ChunkRole::Blocker)),
        MissionError::ChunkId { id: String::new() },
    );
    check(
        |r| r.chunk_library.retain(|c| c.role != ChunkRole::Extraction),
        MissionError::MissingChunkRole {
            role: ChunkRole::Extraction,
        },
    );
    check(
        |r| {
            r.chunk_library
                .retain(|c| !ChunkRole::FILL.contains(&c.role))
        },
        MissionError::MissingChunkRole {
            role: ChunkRole::Connector,
        },
    );
}

#[test]
fn npc_admission_follows_roles_and_tag() {
    for role in ChunkRole::ALL {
        let by_role = matches!(
            role,
            ChunkRole::Objective
                | ChunkRole::Encounter
                | ChunkRole::Landmark
                | ChunkRole::Connector
        );
        assert_eq!(admits_npc(role, false), by_role, "{role:?}");
    }
    assert!(!admits_npc(ChunkRole::Blocker, true));
    assert!(!admits_npc(ChunkRole::Spawn, true));
    assert!(!admits_npc(ChunkRole::Extraction, true));
}

#[test]
fn daily_seed_round_trips_into_a_layout() {
    let date = daily_date_id(2026, 5, 23).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(date, "2026-05-23");
    let mut book = DailySeedBook::new();
    let record = DailySeedRecord {
        cell_id: "PCG_Tactical".into(),
        date_id: date.clone(),
        seed: 424_242,
        server_signature: "unsigned".into(),
    };
    assert_eq!(book.dispatch(record.clone()), Ok(None));
    assert_eq!(book.get("PCG_Tactical", &date), Some(&record));
    assert_eq!(
        daily_key("PCG_Tactical", &date).as_deref(),
        Ok("PCG_Tactical:2026-05-23")
    );
    let layout = solve_daily_mission(&book, "PCG_Tactical", &date, &tactical(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(layout.seed, 424_242);
    assert_eq!(
        layout.daily,
        Some(DailyKey {
            cell_id: "PCG_Tactical".into(),
            date_id: "2026-05-23".into()
        })
    );
    // Every client with the same seed assembles the same layout.
    let direct = solve(&tactical(424_242));
    assert_eq!(layout.chunks, direct.chunks);
    assert!(layout
        .signature()
        .ends_with(";daily=PCG_Tactical:2026-05-23"));
    assert_eq!(
        solve_daily_mission(&book, "PCG_Tactical", "2026-05-24", &tactical(0)),
        Err(DailyError::NoSeed {
            key: "PCG_Tactical:2026-05-24".into()
        })
    );
}

#[test]
fn daily_ids_are_validated() {
    assert_eq!(daily_date_id(2024, 2, 29).as_deref(), Ok("2024-02-29"));
    assert!(daily_date_id(2026, 2, 29).is_err());
    assert!(daily_date_id(1900, 2, 29).is_err());
    assert_eq!(daily_date_id(2000, 2, 29).as_deref(), Ok("2000-02-29"));
    assert!(daily_date_id(2026, 13, 1).is_err());
    assert_eq!(parse_date_id("2026-05-23"), Ok((2026, 5, 23)));
    for bad in [
        "2026-5-23",
        "2026/05/23",
        "2026-05-32",
        "+026-05-23",
        "20260523xx",
        "",
    ] {
        assert!(parse_date_id(bad).is_err(), "{bad}");
    }
    assert!(matches!(
        daily_key("a:b", "2026-05-23"),
        Err(DailyError::CellId { .. })
    ));
    assert!(matches!(
        daily_key("", "2026-05-23"),
        Err(DailyError::CellId { .. })
    ));
}

#[test]
fn the_minimum_critical_path_is_enforced() {
    // Seed by seed: a minimum one step above the free layout's bot path rejects that attempt and
    // the layout found instead has a bot path at least that long.
    let mut retried = 0;
    for seed in 0..12 {
        let free = solve(&tactical(seed));
        let steps = free.bot_path.len() as u32 - 1;
        assert!(
            steps >= 5,
            "spawn x = 0 and extraction x = 5 are ≥ 5 steps apart"
        );
        let request = MissionRequest {
            min_critical_path_steps: steps + 1,
            max_attempts: MAX_ATTEMPTS,
            ..tactical(seed)
        };
        match solve_mission(&request) {
            Ok(layout) => {
                assert!(layout.attempt > free.attempt, "seed {seed}");
                assert!(layout.bot_path.len() as u32 - 1 > steps, "seed {seed}");
                check_layout(&request, &layout);
                retried += 1;
            }
            Err(MissionError::Unsolved { attempts }) => assert!(attempts
                .iter()
                .any(|a| matches!(a, AttemptFailure::CriticalPathTooShort { .. }))),
            Err(other) => panic!("{other}"),
        }
    }
    assert!(retried > 0);
    // No 6×5 layout has a 500-step critical path: every attempt says why.
    let impossible = MissionRequest {
        min_critical_path_steps: 500,
        max_attempts: 4,
        ..tactical(3)
    };
    assert!(matches!(
        solve_mission(&impossible),
        Err(MissionError::Unsolved { attempts })
            if attempts.len() == 4
                && attempts.iter().all(|a| matches!(a, AttemptFailure::CriticalPathTooShort { minimum: 500, .. }))
    ));
}
