package io.ringtail.benchmarks.nab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NAB score of a detector's anomaly scores over a {@link NabCorpus}, written from NAB's
 * definition (its README and papers; its v1.x sweeper):
 *
 * <ul>
 *   <li>A point is a detection when its score is at least the threshold. The first 15 % of each
 *       series (at most 750 points) is probationary: nothing there counts.
 *   <li>In a window of {@code w} points ending at index {@code r}, only the earliest detection
 *       counts, as {@code tp * S(-(r - i + 1) / w) / S(-1)}, where {@code S(x) = 2 / (1 + e^{5x}) -
 *       1} is the scaled sigmoid: a detection at a window's first point earns the whole tp weight,
 *       one at its last about 0.1 of it. A window with no detection costs {@code fn}.
 *   <li>A detection outside every window costs {@code fp * S(x)} with {@code x = (i - r) / (w - 1)}
 *       relative to the last window before it ({@code r} its end, {@code w} its width), and {@code
 *       S = -1} when no window precedes it or {@code x >= 3}: a detection just after a window costs
 *       little, a later one the whole fp weight.
 *   <li>Per profile the threshold is tuned over the whole corpus: every distinct score is tried
 *       (highest first; the highest threshold wins a tie) and the best corpus sum is the raw score.
 *       It is normalized to {@code 100 * (raw - null) / (perfect - null)}, where null is the same
 *       procedure's score for a constant detector (every window missed) and perfect is {@code tp}
 *       times the number of windows.
 * </ul>
 *
 * <p>Immutable and thread-safe once built.
 */
public final class NabScorer {
  private static final double MAX_TP = scaledSigmoid(-1.0);
  private static final Pattern PROFILE =
      Pattern.compile(
          "\"(\\w+)\"\\s*:\\s*\\{\\s*\"CostMatrix\"\\s*:\\s*\\{([^}]*)\\}", Pattern.DOTALL);

  /** A scoring profile: the weights of a true positive, a false negative and a false positive. */
  public record Profile(String name, double tp, double fn, double fp) {}

  /** The NAB profiles, as {@code config/profiles.json} of NAB v1.x defines them. */
  public static final List<Profile> NAB_PROFILES =
      List.of(
          new Profile("standard", 1.0, 1.0, 0.11),
          new Profile("reward_low_FP_rate", 1.0, 1.0, 0.22),
          new Profile("reward_low_FN_rate", 1.0, 2.0, 0.11));

  /**
   * One profile's result: the tuned threshold, the raw and normalized scores, windows detected and
   * missed, and false-positive detections (points) at that threshold.
   */
  public record ProfileScore(
      Profile profile,
      double threshold,
      double raw,
      double normalized,
      int detectedWindows,
      int missedWindows,
      int falsePositives) {}

  private final NabCorpus corpus;
  private final List<Profile> profiles;
  private final int windows;
  private final int[][]
      windowOf; // per series, per point: global window id, -1 outside, -2 probation
  private final double[][] weight; // per series, per point: unweighted tp or fp factor

  /** A scorer for {@code corpus} under {@code profiles}. */
  public NabScorer(NabCorpus corpus, List<Profile> profiles) {
    this.corpus = corpus;
    this.profiles = List.copyOf(profiles);
    List<NabCorpus.Series> series = corpus.series();
    this.windowOf = new int[series.size()][];
    this.weight = new double[series.size()][];
    int nextWindow = 0;
    for (int s = 0; s < series.size(); s++) {
      NabCorpus.Series one = series.get(s);
      int n = one.values().length;
      int[] ids = new int[n];
      double[] w = new double[n];
      int probation = one.probation();
      int prevRight = -1;
      int prevWidth = 0;
      int k = 0;
      int[][] limits = one.windows();
      for (int i = 0; i < n; i++) {
        if (k < limits.length && i >= limits[k][0] && i <= limits[k][1]) {
          int right = limits[k][1];
          double width = right - limits[k][0] + 1;
          ids[i] = nextWindow + k;
          w[i] = scaledSigmoid(-(right - i + 1) / width) / MAX_TP;
          if (i == right) {
            prevRight = right;
            prevWidth = (int) width;
            k++;
          }
        } else {
          ids[i] = -1;
          double position = prevRight < 0 ? 3.0 : Math.abs(i - prevRight) / (prevWidth - 1.0);
          w[i] = scaledSigmoid(position);
        }
        if (i < probation) {
          ids[i] = -2;
        }
      }
      nextWindow += limits.length;
      windowOf[s] = ids;
      weight[s] = w;
    }
    this.windows = nextWindow;
  }

  /** A scorer for {@code corpus} under the profiles of {@code <corpus>/config/profiles.json}. */
  public static NabScorer withCorpusProfiles(NabCorpus corpus) {
    return new NabScorer(corpus, readProfiles(corpus.dir().resolve("config/profiles.json")));
  }

  /** The profiles of a NAB {@code profiles.json}, in file order. */
  public static List<Profile> readProfiles(Path file) {
    try {
      String json = Files.readString(file);
      List<Profile> out = new ArrayList<>();
      Matcher m = PROFILE.matcher(json);
      while (m.find()) {
        String body = m.group(2);
        out.add(
            new Profile(
                m.group(1),
                weight(body, "tpWeight"),
                weight(body, "fnWeight"),
                weight(body, "fpWeight")));
      }
      if (out.isEmpty()) {
        throw new IllegalStateException("no profile in " + file);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double weight(String body, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*([-0-9.eE]+)").matcher(body);
    if (!m.find()) {
      throw new IllegalStateException("profile without " + name + ": " + body);
    }
    return Double.parseDouble(m.group(1));
  }

  /** The profiles this scorer reports. */
  public List<Profile> profiles() {
    return profiles;
  }

  /** {@code 2 / (1 + e^{5x}) - 1}, and -1 from {@code x >= 3} on (NAB's scaled sigmoid). */
  static double scaledSigmoid(double x) {
    if (x >= 3.0) {
      return -1.0;
    }
    return 2.0 / (1.0 + Math.exp(5.0 * x)) - 1.0;
  }

  /**
   * Scores one detector: {@code scores.get(s)[i]} is its score of point {@code i} of series {@code
   * s} (in {@link NabCorpus#series()} order). Each profile gets its own tuned threshold.
   */
  public List<ProfileScore> score(List<double[]> scores) {
    check(scores);
    Integer[] order = sortedByScore(scores);
    List<ProfileScore> out = new ArrayList<>();
    for (Profile p : profiles) {
      double nullRaw = nullScore(p);
      double threshold = bestThreshold(scores, order, p);
      out.add(scoreAt(scores, threshold, p, nullRaw));
    }
    return out;
  }

  /** Scores one detector at a fixed threshold (no tuning) for each profile. */
  public List<ProfileScore> scoreAt(List<double[]> scores, double threshold) {
    check(scores);
    List<ProfileScore> out = new ArrayList<>();
    for (Profile p : profiles) {
      out.add(scoreAt(scores, threshold, p, nullScore(p)));
    }
    return out;
  }

  /** The raw score of each series at {@code threshold} under {@code profile}. */
  public double[] perSeries(List<double[]> scores, double threshold, Profile profile) {
    check(scores);
    double[] out = new double[scores.size()];
    for (int s = 0; s < out.length; s++) {
      out[s] = seriesScore(s, scores.get(s), threshold, profile, null);
    }
    return out;
  }

  /**
   * {@code raw} (a sum of {@link #perSeries} scores over this corpus) normalized as {@link #score}
   * does: 0 for the null detector, 100 for the perfect one; NaN when the corpus has no window.
   */
  public double normalize(Profile profile, double raw) {
    if (windows == 0) {
      return Double.NaN;
    }
    double nullRaw = nullScore(profile);
    return 100.0 * (raw - nullRaw) / (profile.tp() * windows - nullRaw);
  }

  private void check(List<double[]> scores) {
    if (scores.size() != windowOf.length) {
      throw new IllegalArgumentException(
          "scores must hold one array per series ("
              + windowOf.length
              + "), but held "
              + scores.size());
    }
    for (int s = 0; s < windowOf.length; s++) {
      if (scores.get(s).length != windowOf[s].length) {
        throw new IllegalArgumentException(
            "scores of "
                + corpus.series().get(s).path()
                + " must have "
                + windowOf[s].length
                + " points, but had "
                + scores.get(s).length);
      }
    }
  }

  private ProfileScore scoreAt(List<double[]> scores, double threshold, Profile p, double nullRaw) {
    int[] counts = new int[3];
    double raw = 0;
    for (int s = 0; s < scores.size(); s++) {
      raw += seriesScore(s, scores.get(s), threshold, p, counts);
    }
    double perfect = p.tp() * windows;
    return new ProfileScore(
        p,
        threshold,
        raw,
        100.0 * (raw - nullRaw) / (perfect - nullRaw),
        counts[0],
        counts[1],
        counts[2]);
  }

  /** One series' raw score with detections at scores {@code >= threshold}; counts into counts. */
  private double seriesScore(int s, double[] x, double threshold, Profile p, int[] counts) {
    int[] ids = windowOf[s];
    double[] w = weight[s];
    double total = 0;
    int lastWindow = -1;
    boolean detected = false;
    boolean scorable = false;
    for (int i = 0; i < x.length; i++) {
      int id = ids[i];
      if (id == -2) {
        continue;
      }
      if (id != lastWindow) {
        total += closeWindow(lastWindow, detected, scorable, p, counts);
        lastWindow = id;
        detected = false;
        scorable = id >= 0;
      }
      if (!(x[i] >= threshold)) {
        continue;
      }
      if (id >= 0) {
        if (!detected) {
          detected = true;
          total += p.tp() * w[i];
        }
      } else {
        total += p.fp() * w[i];
        if (counts != null) {
          counts[2]++;
        }
      }
    }
    total += closeWindow(lastWindow, detected, scorable, p, counts);
    return total;
  }

  private static double closeWindow(
      int id, boolean detected, boolean scorable, Profile p, int[] counts) {
    if (id < 0 || !scorable) {
      return 0;
    }
    if (counts != null) {
      counts[detected ? 0 : 1]++;
    }
    return detected ? 0 : -p.fn();
  }

  private Integer[] sortedByScore(List<double[]> scores) {
    int n = 0;
    for (int[] ids : windowOf) {
      for (int id : ids) {
        if (id != -2) {
          n++;
        }
      }
    }
    Integer[] order = new Integer[n];
    int k = 0;
    for (int s = 0; s < windowOf.length; s++) {
      for (int i = 0; i < windowOf[s].length; i++) {
        if (windowOf[s][i] != -2) {
          order[k++] = (s << 20) | i;
        }
      }
    }
    Arrays.sort(
        order, (a, b) -> Double.compare(value(scores, b), value(scores, a))); // descending, stable
    return order;
  }

  private static double value(List<double[]> scores, int packed) {
    double v = scores.get(packed >>> 20)[packed & 0xFFFFF];
    return Double.isNaN(v) ? Double.NEGATIVE_INFINITY : v;
  }

  /** NAB's sweep: lower the threshold score by score, keep the best corpus sum (first on ties). */
  private double bestThreshold(List<double[]> scores, Integer[] order, Profile p) {
    double[] best = new double[windows];
    boolean[] present = new boolean[windows];
    for (int[] ids : windowOf) {
      for (int id : ids) {
        if (id >= 0) {
          present[id] = true;
        }
      }
    }
    double total = 0;
    for (int id = 0; id < windows; id++) {
      if (present[id]) {
        best[id] = -p.fn();
        total -= p.fn();
      }
    }
    double bestTotal = total;
    double bestThreshold = Double.POSITIVE_INFINITY;
    double current = Double.NaN;
    for (int packed : order) {
      double v = value(scores, packed);
      if (v != current) {
        if (!Double.isNaN(current) && total > bestTotal) {
          bestTotal = total;
          bestThreshold = current;
        }
        current = v;
      }
      int s = packed >>> 20;
      int i = packed & 0xFFFFF;
      int id = windowOf[s][i];
      if (id >= 0) {
        double tp = p.tp() * weight[s][i];
        if (tp > best[id]) {
          total += tp - best[id];
          best[id] = tp;
        }
      } else {
        total += p.fp() * weight[s][i];
      }
    }
    if (!Double.isNaN(current) && total > bestTotal) {
      bestThreshold = current;
    }
    return bestThreshold;
  }

  /** The null detector's raw score: the sweep over a constant score (detect all, or nothing). */
  private double nullScore(Profile p) {
    List<double[]> constant = new ArrayList<>();
    for (int[] ids : windowOf) {
      double[] half = new double[ids.length];
      Arrays.fill(half, 0.5);
      constant.add(half);
    }
    double all = 0;
    double none = 0;
    for (int s = 0; s < windowOf.length; s++) {
      all += seriesScore(s, constant.get(s), 0.5, p, null);
      none += seriesScore(s, constant.get(s), 1.0, p, null);
    }
    return Math.max(all, none);
  }
}
