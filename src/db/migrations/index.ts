import type { Migration } from 'kysely';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_webhooks.js';
import * as m0003 from './0003_rate_limits.js';
import * as m0004 from './0004_data_version.js';
import * as m0005 from './0005_web_auth.js';
import * as m0006 from './0006_drop_watch_dates_movie_idx.js';
import * as m0007 from './0007_two_factor.js';
import * as m0008 from './0008_jobs.js';
import * as m0009 from './0009_movie_details.js';
import * as m0010 from './0010_imdb_rating_updated_at.js';
import * as m0011 from './0011_user_preferences.js';
import * as m0012 from './0012_image_path_indexes.js';
import * as m0013 from './0013_more_image_path_indexes.js';
import * as m0014 from './0014_statistics_index.js';
import * as m0015 from './0015_movie_cast_first_place.js';
import * as m0016 from './0016_import_safety.js';
import * as m0017 from './0017_statistics_aggregates.js';
import * as m0018 from './0018_statistics_counting.js';
import * as m0019 from './0019_diary_entries.js';
import * as m0020 from './0020_likes_and_lists.js';
import * as m0021 from './0021_statistics_entry_figures.js';
import * as m0022 from './0022_entry_rating_index.js';
import * as m0023 from './0023_feeds.js';
import * as m0024 from './0024_media_server_connections.js';
import * as m0025 from './0025_user_identities.js';

/** Every migration, by name; names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_webhooks': m0002,
  '0003_rate_limits': m0003,
  '0004_data_version': m0004,
  '0005_web_auth': m0005,
  '0006_drop_watch_dates_movie_idx': m0006,
  '0007_two_factor': m0007,
  '0008_jobs': m0008,
  '0009_movie_details': m0009,
  '0010_imdb_rating_updated_at': m0010,
  '0011_user_preferences': m0011,
  '0012_image_path_indexes': m0012,
  '0013_more_image_path_indexes': m0013,
  '0014_statistics_index': m0014,
  '0015_movie_cast_first_place': m0015,
  '0016_import_safety': m0016,
  '0017_statistics_aggregates': m0017,
  '0018_statistics_counting': m0018,
  '0019_diary_entries': m0019,
  '0020_likes_and_lists': m0020,
  '0021_statistics_entry_figures': m0021,
  '0022_entry_rating_index': m0022,
  '0023_feeds': m0023,
  '0024_media_server_connections': m0024,
  '0025_user_identities': m0025,
};
