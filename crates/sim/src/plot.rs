//! SVG plots of simulation results with plotters: game-length histograms per outcome,
//! outcome proportions with their interval bars, and two runs' outcomes side by side.
//!
//! Each function returns the SVG text; [`write_run_plots`] writes the files a Markdown report
//! from [`crate::report::markdown_report`] links to.

use crate::report::{ProportionStat, SimResult, RESULTS};
use plotters::prelude::*;
use std::path::Path;

/// A plot could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("plot: {0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

const SIZE: (u32, u32) = (800, 480);
const COLOURS: [RGBColor; 4] =
    [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(127, 127, 127), RGBColor(255, 127, 14)];

/// Game lengths in plies, one line per outcome, counts per bin (bins widen on long games
/// so that there are at most about 100).
pub fn length_histogram_svg(r: &SimResult) -> Result<String, PlotError> {
    let h = &r.counts.histograms;
    let longest = RESULTS.iter().map(|(_, res)| h.of(*res).len()).max().unwrap_or(0).max(1);
    let bin = longest.div_ceil(100).max(1);
    let bins = longest.div_ceil(bin);
    let series: Vec<(&str, Vec<(u32, u64)>)> = RESULTS
        .iter()
        .filter(|(_, res)| !h.of(*res).is_empty())
        .map(|(name, res)| {
            let mut counts = vec![0u64; bins];
            for (plies, &c) in h.of(*res).iter().enumerate() {
                counts[plies / bin] += c;
            }
            (*name, counts.into_iter().enumerate().map(|(i, c)| ((i * bin) as u32, c)).collect())
        })
        .collect();
    let top = series.iter().flat_map(|(_, s)| s.iter().map(|p| p.1)).max().unwrap_or(1).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("Game length by outcome ({} games of {})", r.games, r.variant), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0u32..(bins * bin) as u32, 0u64..top + top / 10 + 1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(if bin == 1 { "plies".to_string() } else { format!("plies (bins of {bin})") })
            .y_desc("games")
            .draw()
            .map_err(err)?;
        for (i, (name, points)) in series.into_iter().enumerate() {
            let colour = COLOURS[RESULTS.iter().position(|(n, _)| *n == name).unwrap_or(i) % COLOURS.len()];
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                .map_err(err)?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Bars with 95 % interval whiskers for labelled proportions, grouped: `groups[g]` holds one
/// proportion per series.
fn bars_svg(
    title: &str,
    labels: &[&str],
    series: &[&str],
    groups: &[Vec<&ProportionStat>],
) -> Result<String, PlotError> {
    let top = groups.iter().flatten().map(|p| p.hi).fold(0.0f64, f64::max).max(0.05) * 1.15;
    let width = 0.8 / series.len().max(1) as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5f64..labels.len() as f64 - 0.5, 0f64..top.min(1.0))
            .map_err(err)?;
        let names: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(labels.len().max(2) * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                    names[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_desc("proportion of games (95 % Wilson interval)")
            .draw()
            .map_err(err)?;
        for (s, name) in series.iter().enumerate() {
            let colour = COLOURS[s % COLOURS.len()];
            let mut shapes = Vec::new();
            let mut whiskers = Vec::new();
            for (g, group) in groups.iter().enumerate() {
                let Some(p) = group.get(s) else { continue };
                let x0 = g as f64 - 0.4 + s as f64 * width;
                let x1 = x0 + width * 0.9;
                let xm = (x0 + x1) / 2.0;
                shapes.push(Rectangle::new([(x0, 0.0), (x1, p.p)], colour.mix(0.7).filled()));
                whiskers.push(PathElement::new(vec![(xm, p.lo), (xm, p.hi)], BLACK.stroke_width(2)));
                whiskers.push(PathElement::new(vec![(xm - width * 0.2, p.lo), (xm + width * 0.2, p.lo)], BLACK));
                whiskers.push(PathElement::new(vec![(xm - width * 0.2, p.hi), (xm + width * 0.2, p.hi)], BLACK));
            }
            let drawn = chart.draw_series(shapes).map_err(err)?;
            if series.len() > 1 {
                drawn
                    .label(*name)
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], colour.mix(0.7).filled()));
            }
            chart.draw_series(whiskers).map_err(err)?;
        }
        if series.len() > 1 {
            chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Outcome and promotion proportions of one run with their intervals.
pub fn outcomes_svg(r: &SimResult) -> Result<String, PlotError> {
    let labels = ["white win", "black win", "draw", "promotion (any)"];
    let groups = vec![vec![&r.white_win], vec![&r.black_win], vec![&r.draw], vec![&r.promotion_any]];
    bars_svg(
        &format!("Outcomes: {} vs {} ({} games of {})", r.strategies.white, r.strategies.black, r.games, r.variant),
        &labels,
        &["run"],
        &groups,
    )
}

/// Two runs' outcome proportions side by side (e.g. a base run and a rule change).
pub fn comparison_svg(a_name: &str, a: &SimResult, b_name: &str, b: &SimResult) -> Result<String, PlotError> {
    let labels = ["white win", "black win", "draw", "promotion (any)"];
    let groups = vec![
        vec![&a.white_win, &b.white_win],
        vec![&a.black_win, &b.black_win],
        vec![&a.draw, &b.draw],
        vec![&a.promotion_any, &b.promotion_any],
    ];
    bars_svg(&format!("{a_name} against {b_name}"), &labels, &[a_name, b_name], &groups)
}

/// Writes `run{i}-outcomes.svg` and `run{i}-lengths.svg` for every run, and
/// `comparison.svg` for two runs, into `dir` (the names [`crate::report::markdown_report`] links).
pub fn write_run_plots(dir: &Path, runs: &[(&str, &SimResult)]) -> Result<(), PlotError> {
    std::fs::create_dir_all(dir).map_err(err)?;
    let write =
        |name: String, svg: String| std::fs::write(dir.join(&name), svg).map_err(|e| err(format!("{name}: {e}")));
    for (i, (_, r)) in runs.iter().enumerate() {
        write(format!("run{i}-outcomes.svg"), outcomes_svg(r)?)?;
        write(format!("run{i}-lengths.svg"), length_histogram_svg(r)?)?;
    }
    if let [(a_name, a), (b_name, b)] = runs {
        write("comparison.svg".to_string(), comparison_svg(a_name, a, b_name, b)?)?;
    }
    Ok(())
}
