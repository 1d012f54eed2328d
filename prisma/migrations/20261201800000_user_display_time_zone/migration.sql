-- The zone a console user reads times in (IANA name); NULL = the browser's own zone.
ALTER TABLE users ADD COLUMN display_time_zone text;
ALTER TABLE users ADD CONSTRAINT users_display_time_zone_len CHECK (display_time_zone IS NULL OR length(display_time_zone) BETWEEN 1 AND 64);
