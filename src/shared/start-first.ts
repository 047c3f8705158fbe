// Imported first by main.ts, so that this runs before any other module of the bundle is evaluated.
import { keepTickShape } from './tick-shape.js';

keepTickShape();
