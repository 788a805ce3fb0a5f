package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ringtail.CumulativeHistogram;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every binding of windows to a metrics system (Micrometer, OpenTelemetry, Prometheus) shares
 * through {@link WindowConventions}: the same label names, the same percentile rule, the same key
 * bound and selection, and a window that throws isolated and logged the same way.
 *
 * <p>A binding's test extends it, binds in {@link #bind} and reads one scrape as {@link Series}.
 * Time only moves when a test advances the {@link ManualTimeSource}.
 */
public abstract class BindingConventionsContract {

  /** One series of a scrape that has a value: its metric name and labels. */
  public record Series(String metric, Map<String, String> labels) {
    /** The value of {@code label}, or null. */
    public String label(String label) {
      return labels.get(label);
    }
  }

  /**
   * Binds {@code windows} and {@code keyed} (by name) under {@code conventions}, and returns what
   * reads one scrape: the series that have a value (a Micrometer gauge reading NaN has none).
   */
  protected abstract Supplier<List<Series>> bind(
      WindowConventions conventions,
      Map<String, RollingWindow> windows,
      Map<String, KeyedWindows> keyed);

  /** Builds (without binding) a binding of {@code window} publishing {@code percentiles}. */
  protected abstract void buildWithPercentiles(RollingWindow window, double... percentiles);

  /** Builds (without binding) a binding of {@code keyed} reporting at most {@code maximumKeys}. */
  protected abstract void buildWithMaximumKeys(KeyedWindows keyed, int maximumKeys);

  /** Whether the binding publishes percentiles (a Prometheus histogram leaves them to PromQL). */
  protected boolean publishesPercentiles() {
    return true;
  }

  protected final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
  private final Logger logger = Logger.getLogger(WindowConventions.class.getName());
  private final List<LogRecord> logged = new ArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          synchronized (logged) {
            logged.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Level level;

  @BeforeEach
  void captureLog() {
    level = logger.getLevel();
    logger.setLevel(Level.ALL);
    logger.addHandler(handler);
  }

  @AfterEach
  void releaseLog() {
    logger.removeHandler(handler);
    logger.setLevel(level);
  }

  private static final WindowConfig CONFIG =
      WindowConfig.builder()
          .length(Duration.ofSeconds(60))
          .buckets(12)
          .stripes(1)
          .cumulativeHistogram(true)
          .build();

  private RollingWindow window() {
    return RollingWindow.create(CONFIG, time);
  }

  private KeyedWindows keyed() {
    return KeyedWindows.builder().window(CONFIG).timeSource(time).build();
  }

  private static Map<String, RollingWindow> windows(Object... nameWindow) {
    Map<String, RollingWindow> out = new LinkedHashMap<>();
    for (int i = 0; i < nameWindow.length; i += 2) {
      out.put((String) nameWindow[i], (RollingWindow) nameWindow[i + 1]);
    }
    return out;
  }

  @Test
  void series_carryTheConventionsLabelNames() {
    RollingWindow checkout = window();
    checkout.record(2_000_000);
    KeyedWindows tenants = keyed();
    tenants.record("a", 1_000_000);
    tenants.record("b", 3_000_000);
    WindowConventions conventions = WindowConventions.builder().percentiles(0.9, 0.999).build();
    List<Series> scrape =
        bind(conventions, windows("checkout", checkout), Map.of("tenants", tenants)).get();

    assertThat(scrape).isNotEmpty().allSatisfy(s -> assertThat(s.labels()).containsKey("window"));
    Map<String, List<Series>> byWindow =
        scrape.stream().collect(Collectors.groupingBy(s -> s.label(WindowConventions.WINDOW_TAG)));
    assertThat(byWindow).containsOnlyKeys("checkout", "tenants");
    assertThat(byWindow.get("checkout"))
        .allSatisfy(
            s -> {
              assertThat(dotted(s.metric())).startsWith(WindowConventions.WINDOW_PREFIX + ".");
              assertThat(s.labels()).doesNotContainKey(WindowConventions.KEY_TAG);
            });
    assertThat(byWindow.get("tenants"))
        .allSatisfy(
            s -> assertThat(dotted(s.metric())).startsWith(WindowConventions.KEYED_PREFIX + "."));
    assertThat(keysOf(byWindow.get("tenants"))).containsExactlyInAnyOrder("a", "b");
    Set<String> phis =
        scrape.stream()
            .map(s -> s.label(WindowConventions.PERCENTILE_TAG))
            .filter(p -> p != null)
            .collect(Collectors.toSet());
    assertThat(phis).isEqualTo(publishesPercentiles() ? Set.of("0.9", "0.999") : Set.of());
  }

  /** A metric name as the conventions spell it: Prometheus's underscores as dots. */
  private static String dotted(String metric) {
    return metric.replace('_', '.');
  }

  @Test
  void percentiles_areFractions_andAnythingElseFailsNamingTheRule() {
    assumeTrue(publishesPercentiles(), "the binding publishes no percentiles");
    RollingWindow window = window();
    assertThatCode(() -> buildWithPercentiles(window, 0, 0.95, 1)).doesNotThrowAnyException();
    assertThatThrownBy(() -> buildWithPercentiles(window, 0.5, 95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was 95.0");
    assertThatThrownBy(() -> buildWithPercentiles(window, 1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.015 for P1.5), but was 1.5");
    assertThatThrownBy(() -> buildWithPercentiles(window, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was NaN");
  }

  @Test
  void maximumKeys_isOneToTheConventionsLimit() {
    KeyedWindows keyed = keyed();
    assertThatCode(() -> buildWithMaximumKeys(keyed, WindowConventions.MAXIMUM_KEYS_LIMIT))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> buildWithMaximumKeys(keyed, WindowConventions.MAXIMUM_KEYS_LIMIT + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maximumKeys must be between 1 and 100000, but was 100001");
    assertThatThrownBy(() -> buildWithMaximumKeys(keyed, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
  }

  @Test
  void pastTheKeyBound_theBusiestKeysAreReported() {
    KeyedWindows tenants = keyed();
    record(tenants, "quiet", 1);
    record(tenants, "busy", 9);
    record(tenants, "middling", 5);
    record(tenants, "busiest", 12);
    WindowConventions conventions = WindowConventions.builder().maximumKeys(2).build();
    Supplier<List<Series>> scrape = bind(conventions, Map.of(), Map.of("tenants", tenants));
    assertThat(keysOf(scrape.get())).containsExactlyInAnyOrder("busy", "busiest");
    record(tenants, "middling", 10); // now 15: the busiest
    assertThat(keysOf(scrape.get())).containsExactlyInAnyOrder("middling", "busiest");
  }

  private void record(KeyedWindows keyed, String key, int samples) {
    for (int i = 0; i < samples; i++) {
      keyed.record(key, 1_000_000L * (i + 1));
    }
  }

  private static Set<String> keysOf(List<Series> scrape) {
    return scrape.stream()
        .map(s -> s.label(WindowConventions.KEY_TAG))
        .filter(k -> k != null)
        .collect(Collectors.toSet());
  }

  @Test
  void aThrowingWindow_isLeftOut_andWarnedOnceThenOncePerInterval() {
    RollingWindow ok = window();
    ok.record(1_000_000);
    FailingWindow broken = new FailingWindow(window());
    broken.record(1_000_000);
    WindowConventions conventions =
        WindowConventions.builder().failureLogInterval(Duration.ofSeconds(10)).build();
    Supplier<List<Series>> scrape =
        bind(conventions, windows("ok", ok, "broken", broken), Map.of());
    assertThat(windowsOf(scrape.get())).containsExactlyInAnyOrder("ok", "broken");

    broken.down = true;
    for (int i = 0; i < 3; i++) {
      time.advance(Duration.ofSeconds(2));
      assertThat(windowsOf(scrape.get())).containsExactly("ok");
    }
    List<LogRecord> warnings = warnings();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).getMessage()).startsWith("window \"broken\" gave no snapshot");
    assertThat(warnings.get(0).getThrown()).hasMessage("Redis call timed out");

    time.advance(Duration.ofSeconds(10));
    assertThat(windowsOf(scrape.get())).containsExactly("ok");
    assertThat(warnings()).hasSize(2);
    assertThat(warnings().get(1).getMessage()).startsWith("window \"broken\" still gives no");

    broken.down = false;
    time.advance(Duration.ofSeconds(2));
    assertThat(windowsOf(scrape.get())).containsExactlyInAnyOrder("ok", "broken");
  }

  private List<LogRecord> warnings() {
    synchronized (logged) {
      return logged.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
    }
  }

  private static Set<String> windowsOf(List<Series> scrape) {
    return scrape.stream()
        .map(s -> s.label(WindowConventions.WINDOW_TAG))
        .collect(Collectors.toSet());
  }

  /** A window that throws on every read while {@link #down}, as a Redis window in an outage. */
  private static final class FailingWindow extends CountingWindow {
    volatile boolean down;

    FailingWindow(RollingWindow delegate) {
      super(delegate);
    }

    private void check() {
      if (down) {
        throw new IllegalStateException("Redis call timed out");
      }
    }

    @Override
    public WindowSnapshot snapshot() {
      check();
      return super.snapshot();
    }

    @Override
    public Optional<CumulativeHistogram> cumulativeHistogram() {
      check();
      return super.cumulativeHistogram();
    }
  }
}
