//! `--screenshot PATH`: after the first frames, capture the real window and write it as a PNG.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::{ColorImage, Event, ViewportCommand};

/// Frames drawn before capturing, so fonts, layout and the dock have settled.
const SETTLE_FRAMES: u32 = 8;

/// How far the capture has got.
#[derive(Debug)]
pub struct ScreenshotTask {
    path: PathBuf,
    frames: u32,
    requested: bool,
    /// The outcome, once written (or failed).
    pub result: Option<Result<(), String>>,
}

impl ScreenshotTask {
    /// A capture to `path`.
    pub fn new(path: PathBuf) -> Self {
        ScreenshotTask {
            path,
            frames: 0,
            requested: false,
            result: None,
        }
    }

    /// Advances one frame: requests the screenshot once settled, writes it when it arrives and
    /// then closes the window. Frames count towards settling only once the editor is `ready`
    /// (its content generated).
    pub fn step(&mut self, ctx: &egui::Context, ready: bool) {
        if self.result.is_some() {
            return;
        }
        ctx.request_repaint();
        if ready {
            self.frames += 1;
        }
        // Read the event first; calling ctx methods inside `input` would deadlock.
        let image: Option<Arc<ColorImage>> = ctx.input(|input| {
            input.raw.events.iter().find_map(|event| match event {
                Event::Screenshot { image, .. } => Some(image.clone()),
                _ => None,
            })
        });
        if let Some(image) = image {
            let result = write_png(&self.path, &image);
            if let Err(error) = &result {
                eprintln!("screenshot failed: {error}");
            } else {
                eprintln!("screenshot written to {}", self.path.display());
            }
            self.result = Some(result);
            ctx.send_viewport_cmd(ViewportCommand::Close);
            return;
        }
        if !self.requested && self.frames >= SETTLE_FRAMES {
            self.requested = true;
            ctx.send_viewport_cmd(ViewportCommand::Screenshot(egui::UserData::default()));
        }
    }
}

/// Writes an egui image as an RGBA PNG, by the rule every output follows
/// ([`crate::output_file::write_output_file`]).
pub fn write_png(path: &Path, image: &ColorImage) -> Result<(), String> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    let [width, height] = image.size;
    let pixels: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|pixel| pixel.to_srgba_unmultiplied())
        .collect();
    let buffer = image::RgbaImage::from_raw(width as u32, height as u32, pixels)
        .ok_or_else(|| "the screenshot has the wrong number of pixels".to_owned())?;
    let mut png = std::io::Cursor::new(Vec::new());
    buffer
        .write_to(&mut png, image::ImageFormat::Png)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    crate::output_file::write_output_file(path, png.get_ref()).map_err(|e| format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screenshot_is_written_as_a_png_over_an_older_one() {
        let temp = tempfile::tempdir().expect("temp");
        let path = temp.path().join("shots/shot.png");
        let image = ColorImage::new([3, 2], vec![egui::Color32::RED; 6]);
        for _ in 0..2 {
            write_png(&path, &image).expect("writes");
        }
        let decoded = image::open(&path).expect("a png").to_rgba8();
        assert_eq!(decoded.dimensions(), (3, 2));
        assert_eq!(decoded.get_pixel(2, 1).0, [255, 0, 0, 255]);
    }
}
