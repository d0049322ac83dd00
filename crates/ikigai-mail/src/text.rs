//! Text for people and models: previews, timestamps, relative times.

/// Characters a preview keeps before `...`.
pub const PREVIEW_CHARS: usize = 50;

/// The first 50 characters (not bytes: a character is never split) of a
/// body, with `...` when there is more.
pub fn preview(body: &str) -> String {
    match body.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}...", &body[..cut]),
        None => body.to_owned(),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC) for Unix seconds.
pub fn iso8601(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Unix seconds for `YYYY-MM-DDTHH:MM:SSZ`, `YYYY-MM-DDTHH:MM:SS` (UTC) or
/// `YYYY-MM-DD` (midnight UTC).
pub fn parse_iso8601(text: &str) -> Option<i64> {
    let text = text.trim().trim_end_matches('Z');
    let (date, time) = match text.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut parts = date.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut secs = days_from_civil(y, m, d) * 86_400;
    if let Some(time) = time {
        let mut t = time.splitn(3, ':');
        let h: i64 = t.next()?.parse().ok()?;
        let min: i64 = t.next()?.parse().ok()?;
        let s: i64 = t
            .next()
            .map_or(Some(0), |s| s.split('.').next()?.parse().ok())?;
        if h > 23 || min > 59 || s > 60 {
            return None;
        }
        secs += h * 3600 + min * 60 + s;
    }
    Some(secs)
}

/// `just now`, `1 minute ago`, `2 minutes ago`, `3 hours ago`, `4 days ago`.
pub fn relative(secs: i64, now: i64) -> String {
    let ago = (now - secs).max(0);
    let (n, unit) = match ago {
        0..=59 => return "just now".to_owned(),
        60..=3599 => (ago / 60, "minute"),
        3600..=86_399 => (ago / 3600, "hour"),
        _ => (ago / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

// Howard Hinnant's algorithms for the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_count_characters() {
        assert_eq!(preview("short"), "short");
        let fifty = "x".repeat(50);
        assert_eq!(preview(&fifty), fifty);
        assert_eq!(preview(&format!("{fifty}y")), format!("{fifty}..."));
        let accents = "é".repeat(60);
        assert_eq!(preview(&accents), format!("{}...", "é".repeat(50)));
    }

    #[test]
    fn timestamps() {
        assert_eq!(iso8601(1_705_312_200), "2024-01-15T09:50:00Z");
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
        for secs in [0, 1_705_312_200, 951_782_400, 4_102_444_799] {
            assert_eq!(parse_iso8601(&iso8601(secs)), Some(secs));
        }
        assert_eq!(parse_iso8601("2024-01-15"), Some(1_705_276_800));
        assert_eq!(parse_iso8601("2024-13-01"), None);
        assert_eq!(parse_iso8601("yesterday"), None);
    }

    #[test]
    fn relative_times() {
        assert_eq!(relative(100, 100), "just now");
        assert_eq!(relative(0, 60), "1 minute ago");
        assert_eq!(relative(0, 150), "2 minutes ago");
        assert_eq!(relative(0, 7200), "2 hours ago");
        assert_eq!(relative(0, 86_400), "1 day ago");
    }
}
