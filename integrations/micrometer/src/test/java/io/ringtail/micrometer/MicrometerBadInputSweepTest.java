package io.ringtail.micrometer;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.slo.ServiceLevel;
import io.ringtail.slo.ServiceLevelConfig;
import io.ringtail.testkit.BadInput;
import io.ringtail.testkit.BadInput.Cases;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Micrometer binders' builders and methods fed bad input (see {@link BadInput}). */
class MicrometerBadInputSweepTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyBadInput_worksOrFailsAtOnceNamingTheParameter(BadInput.Case c) {
    BadInput.check(c);
  }

  static Stream<BadInput.Case> cases() {
    RollingWindow window =
        RollingWindow.createCompact(WindowConfig.defaults(), new ManualTimeSource());
    Map<String, RollingWindow> windows = Map.of("a", window);
    Cases cases = BadInput.cases();
    cases.rejectsNull(
        "WindowMetrics.builder window null", () -> WindowMetrics.builder(null, "w"), "window");
    cases.rejectsNull(
        "WindowMetrics.builder name null", () -> WindowMetrics.builder(window, null), "name");
    cases.rejects(
        "WindowMetrics.builder name empty", () -> WindowMetrics.builder(window, ""), "name");
    cases.rejects(
        "WindowMetrics.builder name blank", () -> WindowMetrics.builder(window, " "), "name");
    cases.rejectsNull(
        "WindowMetrics.monitor registry null",
        () -> WindowMetrics.monitor(null, window, "w"),
        "registry");
    cases.rejectsNull(
        "WindowMetrics.bindTo null",
        () -> WindowMetrics.builder(window, "w").build().bindTo(null),
        "registry");
    cases.rejectsNull(
        "prefix null", () -> WindowMetrics.builder(window, "w").prefix(null).build(), "prefix");
    for (String prefix : new String[] {"", "Ringtail", "a..b", "1a", "a b"}) {
      cases.rejects(
          "prefix \"" + prefix + "\"",
          () -> WindowMetrics.builder(window, "w").prefix(prefix).build(),
          "prefix");
    }
    cases.rejectsNull(
        "tags null array",
        () -> WindowMetrics.builder(window, "w").tags((String[]) null).build(),
        "tags");
    cases.rejectsNull(
        "tags null iterable",
        () -> WindowMetrics.builder(window, "w").tags((Iterable<Tag>) null).build(),
        "tags");
    cases.rejects(
        "tags odd count", () -> WindowMetrics.builder(window, "w").tags("a").build(), "tags");
    cases.rejectsNull(
        "tags null value",
        () -> WindowMetrics.builder(window, "w").tags("a", null).build(),
        "tag value");
    cases.rejectsNull(
        "tags null key",
        () -> WindowMetrics.builder(window, "w").tags(null, "b").build(),
        "tag key");
    cases.rejectsNull(
        "conventions null",
        () -> WindowMetrics.builder(window, "w").conventions(null).build(),
        "conventions");
    cases.rejectsNull(
        "percentiles null",
        () -> WindowMetrics.builder(window, "w").percentiles((double[]) null).build(),
        "percentiles");
    for (double p : new double[] {Double.NaN, Double.POSITIVE_INFINITY, -0.1, 1.1, 95}) {
      cases.rejects(
          "percentiles " + p,
          () -> WindowMetrics.builder(window, "w").percentiles(0.5, p).build(),
          "percentiles");
    }
    double[] many = DoubleStream.iterate(0, p -> p + 0.01).limit(33).toArray();
    cases.rejects(
        "percentiles 33 distinct",
        () -> WindowMetrics.builder(window, "w").percentiles(many).build(),
        "percentiles");
    cases.works(
        "percentiles none",
        () ->
            WindowMetrics.builder(window, "w")
                .percentiles()
                .build()
                .bindTo(new SimpleMeterRegistry()));
    cases.rejectsNull(
        "timeUnit null",
        () -> WindowMetrics.builder(window, "w").timeUnit(null).build(),
        "timeUnit");
    cases.rejectsNull(
        "baseUnit null",
        () -> WindowMetrics.builder(window, "w").baseUnit(null).build(),
        "baseUnit");
    cases.rejects(
        "baseUnit blank",
        () -> WindowMetrics.builder(window, "w").baseUnit(" ").build(),
        "baseUnit");
    cases.works(
        "timeUnit days",
        () ->
            WindowMetrics.builder(window, "w")
                .timeUnit(TimeUnit.DAYS)
                .build()
                .bindTo(new SimpleMeterRegistry()));
    cases.durations(
        "WindowMetrics.maxSnapshotAge",
        d ->
            WindowMetrics.builder(window, "w")
                .maxSnapshotAge(d)
                .build()
                .bindTo(new SimpleMeterRegistry()),
        "maxSnapshotAge",
        true,
        true);
    cases.durations(
        "KeyedWindowMetrics.maxSnapshotAge",
        d ->
            KeyedWindowMetrics.builder(windows, "w")
                .maxSnapshotAge(d)
                .build()
                .bindTo(new SimpleMeterRegistry()),
        "maxSnapshotAge",
        true,
        true);

    cases.rejectsNull(
        "KeyedWindowMetrics.builder map null",
        () -> KeyedWindowMetrics.builder((Map<String, RollingWindow>) null, "w"),
        "windows");
    cases.rejectsNull(
        "KeyedWindowMetrics.builder keyed null",
        () -> KeyedWindowMetrics.builder((KeyedWindows) null, "w"),
        "keyed");
    cases.rejectsNull(
        "KeyedWindowMetrics.builder name null",
        () -> KeyedWindowMetrics.builder(windows, null),
        "name");
    cases.rejectsNull(
        "KeyedWindowMetrics.monitor registry null",
        () -> KeyedWindowMetrics.monitor(null, windows, "w"),
        "registry");
    cases.rejectsNull(
        "KeyedWindowMetrics.keyTag null",
        () -> KeyedWindowMetrics.builder(windows, "w").keyTag(null).build(),
        "keyTag");
    for (String tag : new String[] {"", " ", "window", "phi"}) {
      cases.rejects(
          "KeyedWindowMetrics.keyTag \"" + tag + "\"",
          () -> KeyedWindowMetrics.builder(windows, "w").keyTag(tag).build(),
          "keyTag");
    }
    cases.rejectsNull(
        "KeyedWindowMetrics.keyFormatter null",
        () -> KeyedWindowMetrics.builder(windows, "w").keyFormatter(null).build(),
        "keyFormatter");
    for (int max : new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 100_001}) {
      cases.rejects(
          "KeyedWindowMetrics.maximumKeys " + max,
          () -> KeyedWindowMetrics.builder(windows, "w").maximumKeys(max).build(),
          "maximumKeys");
    }
    cases.works(
        "KeyedWindowMetrics over KeyedWindows",
        () ->
            KeyedWindowMetrics.monitor(
                new SimpleMeterRegistry(),
                KeyedWindows.builder().timeSource(new ManualTimeSource()).build(),
                "w"));
    ServiceLevel slo =
        ServiceLevel.inProcess(
            ServiceLevelConfig.builder("slo").availability("ok", 0.999).build(),
            new ManualTimeSource());
    cases.rejectsNull("SloMetrics.of null", () -> SloMetrics.of(null), "serviceLevel");
    cases.rejectsNull("SloMetrics.of tags null", () -> SloMetrics.of(slo, (String[]) null), "tags");
    cases.rejects("SloMetrics.of tags odd count", () -> SloMetrics.of(slo, "a"), "tags");
    cases.rejectsNull(
        "SloMetrics.of tag value null", () -> SloMetrics.of(slo, "a", null), "tag value");
    cases.rejectsNull(
        "SloMetrics.monitor registry null", () -> SloMetrics.monitor(null, slo), "registry");
    return cases.stream();
  }
}
