package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.AlertRule;
import io.ringtail.alert.Measure;
import io.ringtail.decision.RateDecision;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.slo.BurnRateAlert;
import io.ringtail.slo.EventCounts;
import io.ringtail.slo.Objective;
import io.ringtail.slo.ObjectiveStatus;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.slo.SloConventions;
import io.ringtail.testkit.BadInput;
import io.ringtail.testkit.BadInput.Cases;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public builder and method of core, fed nulls, empty strings, zero, negative and huge
 * durations, NaN and infinities, {@code long} and {@code int} extremes and huge decimal exponents.
 * Each case either works or throws at once: {@link NullPointerException} whose message is the
 * parameter's name, or {@link IllegalArgumentException} reading {@code "<parameter> must be ...,
 * but was ..."}. The time limit only guards against a hang.
 */
class BadInputSweepTest {
  private static final ScheduledExecutorService SCHEDULER =
      Executors.newSingleThreadScheduledExecutor();

  @AfterAll
  static void stopScheduler() {
    SCHEDULER.shutdownNow();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyBadInput_worksOrFailsAtOnceNamingTheParameter(BadInput.Case c) {
    BadInput.check(c);
  }

  static Stream<BadInput.Case> cases() {
    Cases cases = BadInput.cases();
    windows(cases);
    keyedWindows(cases);
    decisions(cases);
    alerts(cases);
    serviceLevels(cases);
    return cases.stream();
  }

  private static void windows(Cases cases) {
    cases.durations(
        "WindowConfig.length",
        d -> WindowConfig.builder().length(d).build(),
        "length",
        false,
        false);
    for (int buckets :
        new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, WindowConfig.MAX_BUCKETS + 1}) {
      cases.rejects(
          "WindowConfig.buckets " + buckets,
          () -> WindowConfig.builder().buckets(buckets).build(),
          "buckets");
    }
    for (int digits : new int[] {-1, 6, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "WindowConfig.significantDigits " + digits,
          () -> WindowConfig.builder().significantDigits(digits).build(),
          "significantDigits");
    }
    for (long lowest : new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 55}) {
      cases.rejects(
          "WindowConfig.lowestDiscernibleValue " + lowest,
          () ->
              WindowConfig.builder()
                  .lowestDiscernibleValue(lowest)
                  .highestTrackableValue(Long.MAX_VALUE)
                  .build(),
          "lowestDiscernibleValue");
    }
    for (long highest : new long[] {0, 1, -1, Long.MIN_VALUE}) {
      cases.rejects(
          "WindowConfig.highestTrackableValue " + highest,
          () -> WindowConfig.builder().highestTrackableValue(highest).build(),
          "highestTrackableValue");
    }
    cases.works(
        "WindowConfig.highestTrackableValue Long.MAX_VALUE at 5 digits",
        () -> {
          RollingWindow w =
              RollingWindow.createCompact(
                  WindowConfig.builder()
                      .significantDigits(5)
                      .highestTrackableValue(Long.MAX_VALUE)
                      .build(),
                  new ManualTimeSource());
          w.record(Long.MAX_VALUE);
          assertThat(w.snapshot().max()).isEqualTo((double) Long.MAX_VALUE);
        });
    for (int stripes : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "WindowConfig.stripes " + stripes,
          () -> WindowConfig.builder().stripes(stripes).build(),
          "stripes");
    }
    WindowConfig config =
        WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(1).build();
    cases.rejectsNull("RollingWindow.create config", () -> RollingWindow.create(null), "config");
    cases.rejectsNull(
        "RollingWindow.create timeSource", () -> RollingWindow.create(config, null), "timeSource");
    cases.rejectsNull(
        "RollingWindow.createCompact config",
        () -> RollingWindow.createCompact(null, new ManualTimeSource()),
        "config");
    cases.rejectsNull(
        "RollingWindow.createCompact timeSource",
        () -> RollingWindow.createCompact(config, null),
        "timeSource");
    for (boolean compact : new boolean[] {false, true}) {
      String kind = compact ? "compact" : "striped";
      for (long value : new long[] {Long.MIN_VALUE, -1, Long.MAX_VALUE}) {
        cases.works(
            kind + " record " + value + " (counted as rejected)",
            () -> {
              RollingWindow w = window(config, compact);
              w.record(value);
              assertThat(w.snapshot().rejected()).isEqualTo(1);
            });
      }
      for (long time : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}) {
        cases.works(
            kind + " recordAt time " + time,
            () -> {
              RollingWindow w = window(config, compact);
              w.recordAt(5, time);
              w.recordElapsedSince(time);
              w.snapshot();
            });
      }
      for (double p :
          new double[] {
            Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.5, 100.5
          }) {
        cases.rejects(
            kind + " valueAtPercentile " + p,
            () -> filled(config, compact).valueAtPercentile(p),
            "percentile");
      }
      for (long v : new long[] {Long.MIN_VALUE, Long.MAX_VALUE}) {
        cases.works(kind + " fractionAbove " + v, () -> filled(config, compact).fractionAbove(v));
      }
    }
    cases.rejectsNull(
        "HistogramSnapshot.merge null", () -> filled(config, false).merge(null), "other");
    cases.rejectsNull(
        "HistogramSnapshot.fromByteArray null",
        () -> HistogramSnapshot.fromByteArray(null),
        "bytes");
    cases.rejects(
        "HistogramSnapshot.fromByteArray empty",
        () -> HistogramSnapshot.fromByteArray(new byte[0]),
        "bytes");
    cases.rejects(
        "HistogramSnapshot.fromByteArray header then garbage",
        () -> {
          byte[] good = filled(config, false).toByteArray();
          byte[] bytes = new byte[good.length];
          System.arraycopy(good, 0, bytes, 0, 52);
          java.util.Arrays.fill(bytes, 52, bytes.length, (byte) 0x7f);
          HistogramSnapshot.fromByteArray(bytes);
        },
        "bytes");
    cases.rejectsNull(
        "ManualTimeSource.advance null", () -> new ManualTimeSource().advance(null), "amount");
    cases.rejects(
        "ManualTimeSource.advance huge",
        () -> new ManualTimeSource().advance(BadInput.HUGE),
        "amount");
    cases.rejects(
        "ManualTimeSource.advance most negative",
        () -> new ManualTimeSource().advance(Duration.ofSeconds(Long.MIN_VALUE)),
        "amount");
    cases.works(
        "ManualTimeSource extremes wrap",
        () ->
            new ManualTimeSource(Long.MAX_VALUE)
                .advanceNanos(Long.MAX_VALUE)
                .advance(Duration.ofNanos(Long.MIN_VALUE + 1))
                .set(Long.MIN_VALUE));
  }

  private static void keyedWindows(Cases cases) {
    cases.rejectsNull(
        "KeyedWindows.window null", () -> KeyedWindows.builder().window(null).build(), "window");
    cases.rejectsNull(
        "KeyedWindows.timeSource null",
        () -> KeyedWindows.builder().timeSource(null).build(),
        "timeSource");
    for (long max : new long[] {0, -1, Long.MIN_VALUE}) {
      cases.rejects(
          "KeyedWindows.maximumKeys " + max,
          () -> KeyedWindows.builder().maximumKeys(max).build(),
          "maximumKeys");
    }
    cases.works(
        "KeyedWindows.maximumKeys Long.MAX_VALUE",
        () -> KeyedWindows.builder().maximumKeys(Long.MAX_VALUE).build());
    ManualTimeSource time = new ManualTimeSource();
    cases.rejectsNull("KeyedWindows.record null key", () -> keyed(time).record(null, 1), "key");
    cases.rejects("KeyedWindows.record empty key", () -> keyed(time).record("", 1), "key");
    cases.rejectsNull(
        "KeyedWindows.recordAt null key", () -> keyed(time).recordAt(null, 1, 0), "key");
    cases.rejectsNull("KeyedWindows.snapshot null key", () -> keyed(time).snapshot(null), "key");
    cases.rejects("KeyedWindows.snapshot empty key", () -> keyed(time).snapshot(""), "key");
    cases.works(
        "KeyedWindows extremes",
        () -> {
          KeyedWindows k = keyed(time);
          k.record("k", Long.MIN_VALUE);
          k.recordAt("k", Long.MAX_VALUE, Long.MIN_VALUE);
          k.recordAt("k", 1, Long.MAX_VALUE);
          k.recordElapsedSince("k", Long.MIN_VALUE);
          assertThat(k.snapshot("k").rejected()).isGreaterThanOrEqualTo(1);
          k.snapshots();
        });
  }

  private static void decisions(Cases cases) {
    cases.durations(
        "RateLimitConfig.window",
        d -> RateLimitConfig.builder().limit(1).window(d).build(),
        "window",
        false,
        false);
    cases.durations(
        "RateLimitConfig.listenerCooldown",
        d ->
            RateLimitConfig.builder()
                .limit(1)
                .listenerCooldown(d)
                .idleExpiry(BadInput.LONGEST)
                .build(),
        "listenerCooldown",
        true,
        true);
    cases.durations(
        "RateLimitConfig.idleExpiry",
        d -> RateLimitConfig.builder().limit(1).window(Duration.ofNanos(1)).idleExpiry(d).build(),
        "idleExpiry",
        false,
        true);
    cases.rejectsNull(
        "RateLimitConfig.timeSource null",
        () -> RateLimitConfig.builder().limit(1).timeSource(null).build(),
        "timeSource");
    cases.works(
        "RateLimitConfig.listener null (none)",
        () -> RateLimitConfig.builder().limit(1).listener(null).build());
    for (int limit : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "RateLimitConfig.limit " + limit,
          () -> RateLimitConfig.builder().limit(limit).build(),
          "limit");
    }
    cases.durations(
        "ThresholdConfig.window",
        d -> ThresholdConfig.builder().threshold(1).window(d).build(),
        "window",
        false,
        false);
    for (int threshold : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "ThresholdConfig.threshold " + threshold,
          () -> ThresholdConfig.builder().threshold(threshold).build(),
          "threshold");
    }
    for (int max : new int[] {-1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "ThresholdConfig.maxEventsPerKey " + max,
          () -> ThresholdConfig.builder().threshold(2).maxEventsPerKey(max).build(),
          "maxEventsPerKey");
    }
    cases.durations(
        "SumCapConfig.window",
        d -> SumCapConfig.builder().cap(BigDecimal.ONE).window(d).build(),
        "window",
        false,
        false);
    cases.rejectsNull("SumCapConfig.cap null", () -> SumCapConfig.builder().build(), "cap");
    for (String cap :
        new String[] {
          "0", "-1", "1E+10000000", "1E-30000000", "0.001", "1E+2147483647", "1E-2147483647"
        }) {
      cases.rejects(
          "SumCapConfig.cap " + cap,
          () -> SumCapConfig.builder().cap(new BigDecimal(cap)).build(),
          "cap");
    }
    for (int scale : new int[] {-1, 10, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "SumCapConfig.scale " + scale,
          () -> SumCapConfig.builder().cap(BigDecimal.ONE).scale(scale).build(),
          "scale");
    }
    for (int max : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      cases.rejects(
          "SumCapConfig.maxEntriesPerKey " + max,
          () -> SumCapConfig.builder().cap(BigDecimal.ONE).maxEntriesPerKey(max).build(),
          "maxEntriesPerKey");
    }

    ManualTimeSource time = new ManualTimeSource();
    RateLimitConfig rate = RateLimitConfig.builder().limit(2).timeSource(time).build();
    ThresholdConfig threshold = ThresholdConfig.builder().threshold(2).timeSource(time).build();
    SumCapConfig sum = SumCapConfig.builder().cap(BigDecimal.TEN).timeSource(time).build();
    cases.rejectsNull("RateLimiter.inProcess null", () -> RateLimiter.inProcess(null), "config");
    cases.rejectsNull(
        "ThresholdDetector.inProcess null", () -> ThresholdDetector.inProcess(null), "config");
    cases.rejectsNull("SumCap.inProcess null", () -> SumCap.inProcess(null), "config");
    for (long max : new long[] {0, -1, Long.MIN_VALUE}) {
      cases.rejects(
          "RateLimiter.inProcess maximumKeys " + max,
          () -> RateLimiter.inProcess(rate, max),
          "maximumKeys");
      cases.rejects(
          "ThresholdDetector.inProcess maximumKeys " + max,
          () -> ThresholdDetector.inProcess(threshold, max),
          "maximumKeys");
      cases.rejects(
          "SumCap.inProcess maximumKeys " + max, () -> SumCap.inProcess(sum, max), "maximumKeys");
    }
    cases.rejectsNull(
        "RateLimiter.tryAcquire null", () -> RateLimiter.inProcess(rate).tryAcquire(null), "key");
    cases.rejects(
        "RateLimiter.tryAcquire empty", () -> RateLimiter.inProcess(rate).tryAcquire(""), "key");
    cases.rejectsNull(
        "ThresholdDetector.record null key",
        () -> ThresholdDetector.inProcess(threshold).record(null, "e"),
        "key");
    cases.rejects(
        "ThresholdDetector.record empty key",
        () -> ThresholdDetector.inProcess(threshold).record("", "e"),
        "key");
    cases.rejectsNull(
        "ThresholdDetector.record null eventId",
        () -> ThresholdDetector.inProcess(threshold).record("k", null),
        "eventId");
    cases.rejects(
        "ThresholdDetector.record empty eventId",
        () -> ThresholdDetector.inProcess(threshold).record("k", ""),
        "eventId");
    cases.rejectsNull(
        "SumCap.tryAdd null key", () -> SumCap.inProcess(sum).tryAdd(null, BigDecimal.ONE), "key");
    cases.rejects(
        "SumCap.tryAdd empty key", () -> SumCap.inProcess(sum).tryAdd("", BigDecimal.ONE), "key");
    cases.rejectsNull(
        "SumCap.tryAdd null amount", () -> SumCap.inProcess(sum).tryAdd("k", null), "amount");
    for (String amount :
        new String[] {"-0.01", "-1E+10000000", "1E-30000000", "0.001", "1E-2147483647"}) {
      cases.rejects(
          "SumCap.tryAdd " + amount,
          () -> SumCap.inProcess(sum).tryAdd("k", new BigDecimal(amount)),
          "amount");
    }
    for (String amount : new String[] {"1E+10000000", "1E+2147483647", "10.000000001", "10.01"}) {
      cases.works(
          "SumCap.tryAdd " + amount + " exceeds the cap",
          () -> {
            SumDecision d = SumCap.inProcess(sum).tryAdd("k", new BigDecimal(amount));
            assertThat(d.exceedsCap()).isTrue();
            assertThat(d.allowed()).isFalse();
          });
    }
    cases.works(
        "SumCap.tryAdd zero at any exponent",
        () -> {
          assertThat(SumCap.inProcess(sum).tryAdd("k", new BigDecimal("0E-2147483647")).allowed())
              .isTrue();
          assertThat(SumCap.inProcess(sum).tryAdd("k", new BigDecimal("0E+2147483647")).allowed())
              .isTrue();
        });
    for (long t : new long[] {Long.MIN_VALUE, Long.MAX_VALUE}) {
      cases.works(
          "decisions at time " + t,
          () -> {
            RateLimiter limiter = RateLimiter.inProcess(rate);
            limiter.tryAcquire("k", t);
            limiter.tryAcquire("k", t + 1);
            ThresholdDetector detector = ThresholdDetector.inProcess(threshold);
            detector.record("k", "a", t);
            detector.record("k", "b", t - 1);
            SumCap cap = SumCap.inProcess(sum);
            cap.tryAdd("k", BigDecimal.ONE, t);
            cap.tryAdd("k", BigDecimal.ONE, t + 1);
          });
    }
    cases.rejectsNull(
        "RateDecision retryAfter null", () -> new RateDecision(true, 1, 2, null), "retryAfter");
    cases.rejects(
        "RateDecision retryAfter huge",
        () -> new RateDecision(false, 0, 2, BadInput.HUGE),
        "retryAfter");
    cases.rejectsNull(
        "SumDecision amount null",
        () ->
            new SumDecision(
                true,
                false,
                null,
                BigDecimal.ONE,
                BigDecimal.TEN,
                Optional.of(Duration.ZERO),
                Duration.ZERO),
        "amount");
  }

  private static void serviceLevels(Cases cases) {
    Duration hour = Duration.ofHours(1);
    Duration minute = Duration.ofMinutes(1);
    cases.rejectsNull(
        "ServiceLevelConfig.builder null", () -> ServiceLevelConfig.builder(null), "name");
    cases.rejects(
        "ServiceLevelConfig.builder blank", () -> ServiceLevelConfig.builder(" "), "name");
    cases.rejectsNull(
        "Objective.latency name null", () -> Objective.latency(null, minute, 0.9), "name");
    cases.durations(
        "Objective.latency threshold",
        d -> Objective.latency("x", d, 0.9),
        "threshold",
        false,
        true);
    for (double target :
        new double[] {0, 1, -1, 2, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE}) {
      boolean valid = target > 0 && target < 1;
      if (valid) {
        cases.works(
            "Objective.availability target " + target, () -> Objective.availability("x", target));
      } else {
        cases.rejects(
            "Objective.availability target " + target,
            () -> Objective.availability("x", target),
            "target");
        cases.rejects(
            "Objective.latency target " + target,
            () -> Objective.latency("x", minute, target),
            "target");
      }
    }
    for (double factor :
        new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      cases.rejects(
          "BurnRateAlert factor " + factor,
          () -> BurnRateAlert.page(factor, hour, minute),
          "factor");
    }
    cases.rejectsNull(
        "BurnRateAlert severity null", () -> BurnRateAlert.of(null, 2, hour, minute), "severity");
    cases.durations(
        "BurnRateAlert shortWindow",
        d -> BurnRateAlert.page(2, hour, d),
        "shortWindow",
        false,
        false);
    cases.durations(
        "BurnRateAlert longWindow",
        d -> BurnRateAlert.page(2, d, Duration.ofMillis(1)),
        "longWindow",
        false,
        false);
    cases.durations(
        "SloConventions.windowLabel", SloConventions::windowLabel, "window", false, false);
    ServiceLevelConfig.Builder builder =
        ServiceLevelConfig.builder("slo").availability("ok", 0.999).alerts(List.of());
    cases.durations(
        "ServiceLevelConfig.period", d -> builder.period(d).build(), "period", false, false);
    cases.rejectsNull(
        "ServiceLevelConfig.alerts null",
        () -> builder.alerts((List<BurnRateAlert>) null),
        "alerts");
    cases.rejectsNull(
        "ServiceLevelConfig.objective null", () -> builder.objective(null), "objective");
    ServiceLevelConfig config = ServiceLevelConfig.builder("slo").availability("ok", 0.999).build();
    cases.rejectsNull(
        "ServiceLevel.inProcess config", () -> ServiceLevel.inProcess(null), "config");
    cases.rejectsNull(
        "ServiceLevel.inProcess timeSource",
        () -> ServiceLevel.inProcess(config, null),
        "timeSource");
    for (long value : new long[] {Long.MIN_VALUE, -1, Long.MAX_VALUE}) {
      cases.works(
          "ServiceLevel.record latency " + value,
          () -> {
            ServiceLevel slo = ServiceLevel.inProcess(config, new ManualTimeSource());
            slo.record(value, true);
            assertThat(slo.status().objective("ok").recorded()).isEqualTo(new EventCounts(0, 1));
          });
    }
    for (long time : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}) {
      cases.works(
          "ServiceLevel.recordAt time " + time,
          () -> {
            ServiceLevel slo = ServiceLevel.inProcess(config, new ManualTimeSource());
            slo.recordAt(5, false, time);
            assertThat(slo.status().objective("ok").recorded()).isEqualTo(new EventCounts(1, 1));
          });
    }
    cases.works(
        "ServiceLevel with a period of 290 years",
        () -> {
          ServiceLevelConfig longest =
              ServiceLevelConfig.builder("slo")
                  .availability("ok", 0.999)
                  .period(Duration.ofDays(290 * 365))
                  .build();
          ServiceLevel slo =
              ServiceLevel.inProcess(longest, new ManualTimeSource(Long.MIN_VALUE / 2));
          slo.record(5, false);
          assertThat(slo.status().objective("ok").periodCounts()).isEqualTo(new EventCounts(1, 1));
        });
    cases.rejects("EventCounts good negative", () -> new EventCounts(-1, 0), "good");
    cases.rejects("EventCounts total below good", () -> new EventCounts(2, 1), "total");
    cases.rejectsNull(
        "ObjectiveStatus.of windows null",
        () -> ObjectiveStatus.of(config, config.objectives().get(0), null, EventCounts.NONE),
        "windows");
    cases.rejects(
        "ObjectiveStatus.of windows empty",
        () -> ObjectiveStatus.of(config, config.objectives().get(0), Map.of(), EventCounts.NONE),
        "windows");
  }

  private static void alerts(Cases cases) {
    RollingWindow window =
        window(
            WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(1).build(),
            true);
    cases.rejectsNull(
        "AlertRule.threshold name null",
        () -> AlertRule.threshold(null, window, Measure.mean()),
        "name");
    cases.rejects(
        "AlertRule.threshold name empty",
        () -> AlertRule.threshold("", window, Measure.mean()),
        "name");
    cases.rejects(
        "AlertRule.threshold name blank",
        () -> AlertRule.threshold(" \t", window, Measure.mean()),
        "name");
    cases.rejectsNull(
        "AlertRule.threshold window null",
        () -> AlertRule.threshold("r", null, Measure.mean()),
        "window");
    cases.rejectsNull(
        "AlertRule.threshold measure null",
        () -> AlertRule.threshold("r", window, null),
        "measure");
    cases.rejectsNull(
        "AlertRule.ratio baseline null",
        () -> AlertRule.ratio("r", window, null, Measure.mean()),
        "baseline");
    for (double objective : new double[] {Double.NaN, 0, 1, -1, Double.POSITIVE_INFINITY}) {
      cases.rejects(
          "AlertRule.sloBurn objective " + objective,
          () -> AlertRule.sloBurn("r", window, 5, objective),
          "objective");
    }
    cases.rejects(
        "AlertRule.sloBurn target -1", () -> AlertRule.sloBurn("r", window, -1, 0.99), "target");
    cases.rejectsNull(
        "AlertRule.sloBurn window null", () -> AlertRule.sloBurn("r", null, 5, 0.99), "window");
    for (double level :
        new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      cases.rejects(
          "AlertRule.above " + level,
          () -> AlertRule.threshold("r", window, Measure.mean()).above(level).build(),
          "threshold");
      cases.rejects(
          "AlertRule.atLeast " + level,
          () -> AlertRule.threshold("r", window, Measure.mean()).atLeast(level).build(),
          "threshold");
      cases.rejects(
          "AlertRule.resolveBelow " + level,
          () ->
              AlertRule.threshold("r", window, Measure.mean()).above(1).resolveBelow(level).build(),
          "resolveBelow");
    }
    cases.durations(
        "AlertRule.fireAfter",
        d -> AlertRule.threshold("r", window, Measure.mean()).above(1).fireAfter(d).build(),
        "fireAfter",
        true,
        true);
    cases.durations(
        "AlertRule.cooldown",
        d -> AlertRule.threshold("r", window, Measure.mean()).above(1).cooldown(d).build(),
        "cooldown",
        true,
        true);
    cases.durations(
        "AlertRule.deviation baselinePeriod",
        d -> AlertRule.deviation("r", window, Measure.mean(), d).above(3).build(),
        "baselinePeriod",
        false,
        true);
    for (long samples : new long[] {-1, Long.MIN_VALUE}) {
      cases.rejects(
          "AlertRule.minimumSamples " + samples,
          () ->
              AlertRule.threshold("r", window, Measure.mean())
                  .above(1)
                  .minimumSamples(samples)
                  .build(),
          "minimumSamples");
    }
    cases.works(
        "AlertRule.minimumSamples Long.MAX_VALUE",
        () ->
            AlertRule.threshold("r", window, Measure.mean())
                .above(1)
                .minimumSamples(Long.MAX_VALUE)
                .build());
    for (int points : new int[] {1, 0, Integer.MIN_VALUE}) {
      cases.rejects(
          "AlertRule.minimumBaselinePoints " + points,
          () ->
              AlertRule.deviation("r", window, Measure.mean(), Duration.ofMinutes(1))
                  .above(3)
                  .minimumBaselinePoints(points)
                  .build(),
          "minimumBaselinePoints");
    }
    for (double p : new double[] {Double.NaN, -1, 100.5, Double.POSITIVE_INFINITY}) {
      cases.rejects("Measure.percentile " + p, () -> Measure.percentile(p), "percentile");
    }
    cases.rejects("Measure.fractionAbove -1", () -> Measure.fractionAbove(-1), "target");
    cases.rejects(
        "Measure.fractionAbove Long.MIN_VALUE",
        () -> Measure.fractionAbove(Long.MIN_VALUE),
        "target");
    cases.works(
        "Measure.fractionAbove Long.MAX_VALUE",
        () -> Measure.fractionAbove(Long.MAX_VALUE).of(window.snapshot()));

    ManualTimeSource time = new ManualTimeSource();
    cases.rejectsNull("AlertMonitor.create null", () -> AlertMonitor.create(null), "time");
    cases.rejectsNull("AlertMonitor.add null", () -> AlertMonitor.create(time).add(null), "rule");
    cases.rejectsNull(
        "AlertMonitor.addListener null",
        () -> AlertMonitor.create(time).addListener(null),
        "listener");
    cases.rejectsNull(
        "AlertMonitor.state null", () -> AlertMonitor.create(time).state(null), "ruleName");
    cases.rejectsNull(
        "AlertMonitor.remove null", () -> AlertMonitor.create(time).remove(null), "ruleName");
    cases.rejectsNull(
        "AlertMonitor.evaluateOn null",
        () -> AlertMonitor.create(time).evaluateOn(null),
        "executor");
    cases.rejectsNull(
        "AlertMonitor.scheduleWith scheduler null",
        () -> AlertMonitor.create(time).scheduleWith(null, Duration.ofSeconds(1)),
        "scheduler");
    cases.durations(
        "AlertMonitor.scheduleWith period",
        d -> AlertMonitor.create(time).scheduleWith(SCHEDULER, d).cancel(false),
        "period",
        false,
        true);
  }

  private static RollingWindow window(WindowConfig config, boolean compact) {
    return compact
        ? RollingWindow.createCompact(config, new ManualTimeSource())
        : RollingWindow.create(config, new ManualTimeSource());
  }

  private static HistogramSnapshot filled(WindowConfig config, boolean compact) {
    RollingWindow w = window(config, compact);
    for (int i = 1; i <= 100; i++) {
      w.record(i);
    }
    return (HistogramSnapshot) w.snapshot();
  }

  private static KeyedWindows keyed(ManualTimeSource time) {
    return KeyedWindows.builder().timeSource(time).build();
  }
}
