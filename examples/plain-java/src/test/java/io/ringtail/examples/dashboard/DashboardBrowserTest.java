package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringtail.ManualTimeSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the dashboard page in a real headless Chromium (Debian's {@code chromium} package) and
 * checks that the uPlot charts received the data. Fails, never skips, when Chromium is missing;
 * {@code mvn verify} installs it first where it is (examples/install-chromium.sh), or point {@code
 * -Dringtail.chromium} at another build.
 */
class DashboardBrowserTest {
  private static final int SECONDS = 25;
  private ManualTimeSource time;
  private Dashboard dashboard;

  @TempDir Path profile;

  @BeforeEach
  void start() throws IOException {
    time = new ManualTimeSource(0);
    dashboard =
        Dashboard.create(
            Options.parse("--duration", "30", "--rate", "300"), time, 1_780_000_000_000L);
    dashboard.startServer();
    DashboardEndpointsTest.drive(dashboard, time, SECONDS);
  }

  @AfterEach
  void stop() {
    dashboard.close();
  }

  @Test
  void page_drawsEveryChartWithTheServedPoints() throws Exception {
    String dom = chromium("--virtual-time-budget=5000", "--dump-dom", dashboard.url());

    assertThat(attribute(dom, "data-charts")).isEqualTo("4");
    assertThat(attribute(dom, "data-points")).isEqualTo(String.valueOf(SECONDS));
    assertThat(attribute(dom, "data-alert")).isEqualTo("FIRING");
    assertThat(attribute(dom, "data-routes")).isEqualTo("3");
    assertThat(Pattern.compile("class=\"uplot").matcher(dom).results().count()).isEqualTo(4);
    assertThat(Pattern.compile("<canvas").matcher(dom).results().count()).isGreaterThanOrEqualTo(4);
    assertThat(dom).contains("ALERT FIRING", "degraded", "300 req/s");
  }

  /**
   * The SLO panel shows each objective's SLI and budget bar as the JSON has them: at 25 s the
   * degraded phase has overspent both budgets (an empty bar) and only the ticket fires.
   */
  @Test
  void page_drawsTheSloPanel_withTheJsonsValues() throws Exception {
    String dom = chromium("--virtual-time-budget=5000", "--dump-dom", dashboard.url());

    assertSloPanel(dom, dashboard.model().toJson().get("slo"));
    assertThat(attribute(dom, "data-slo-state")).isEqualTo("ticket");
    assertThat(dom).contains("TICKET FIRING", "period 43 min 12 s", "1000× shorter");
  }

  /** Before the fault both budgets are partly spent: the bars are drawn part full. */
  @Test
  void page_budgetBarsArePartFull_beforeTheFault(@TempDir Path other) throws Exception {
    ManualTimeSource t = new ManualTimeSource(0);
    try (Dashboard normal =
        Dashboard.create(
            Options.parse("--duration", "60", "--rate", "2000"), t, 1_780_000_000_000L)) {
      normal.startServer();
      DashboardEndpointsTest.drive(normal, t, 10);
      JsonNode slo = normal.model().toJson().get("slo");
      for (JsonNode o : slo.get("objectives")) {
        assertThat(o.get("budgetRemaining").asDouble()).as(o.toString()).isBetween(0.5, 0.9999);
      }

      String dom = chromium(other, "--virtual-time-budget=5000", "--dump-dom", normal.url());

      assertSloPanel(dom, slo);
      assertThat(attribute(dom, "data-slo-state")).isEqualTo("ok");
    }
  }

  private static void assertSloPanel(String dom, JsonNode slo) {
    assertThat(attribute(dom, "data-slo")).isEqualTo("2");
    for (JsonNode o : slo.get("objectives")) {
      String name = o.get("name").asText();
      Matcher row =
          Pattern.compile(
                  "<tr data-objective=\""
                      + name
                      + "\">.*?data-sli=\"([^\"]+)\".*?class=\"budget-bar[^\"]*\""
                      + " data-budget=\"([^\"]+)\" style=\"width: ([\\d.]+)%;?\".*?</tr>")
              .matcher(dom);
      assertThat(row.find()).as("a row for %s in%n%s", name, dom).isTrue();
      double sli = o.get("sli").asDouble();
      double budget = o.get("budgetRemaining").asDouble();
      assertThat(Double.parseDouble(row.group(1))).as(name + " SLI").isEqualTo(sli);
      assertThat(Double.parseDouble(row.group(2))).as(name + " budget").isEqualTo(budget);
      assertThat(Double.parseDouble(row.group(3)))
          .as(name + " bar width, percent")
          .isCloseTo(Math.max(0, Math.min(100, 100 * budget)), within(0.005));
      assertThat(row.group())
          .contains(String.format(Locale.ROOT, "%.3f %%", 100 * sli))
          .contains(String.format(Locale.ROOT, "%.1f %%", 100 * budget));
    }
  }

  @Test
  void page_screenshot_isWritten() throws Exception {
    Path png = Paths.get("target", "dashboard-screenshot.png").toAbsolutePath();
    Files.deleteIfExists(png);

    chromium(
        "--virtual-time-budget=5000",
        "--window-size=1400,1000",
        "--screenshot=" + png,
        dashboard.url());

    byte[] bytes = Files.readAllBytes(png);
    assertThat(bytes).startsWith(0x89, 'P', 'N', 'G');
    assertThat(bytes.length).as("a drawn page, not a blank one").isGreaterThan(30_000);
  }

  private String chromium(String... args) throws IOException, InterruptedException {
    return chromium(profile, args);
  }

  /** Runs headless Chromium with a fresh profile in {@code profile}; returns its stdout. */
  static String chromium(Path profile, String... args) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                chromiumBinary(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    Path out = profile.resolve("stdout.txt");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(profile.resolve("stderr.txt").toFile())
            .start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish in 90 s: " + command);
    }
    assertThat(p.exitValue())
        .as("chromium exit status; stderr:%n%s", Files.readString(profile.resolve("stderr.txt")))
        .isZero();
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static String chromiumBinary() {
    String configured = System.getProperty("ringtail.chromium", System.getenv("CHROMIUM"));
    List<String> candidates =
        configured != null
            ? List.of(configured)
            : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome");
    for (String c : candidates) {
      if (Files.isExecutable(Path.of(c))) {
        return c;
      }
    }
    throw new AssertionError(
        "no headless Chromium at "
            + candidates
            + ": install Debian's chromium package (apt-get install chromium) or pass -Dringtail.chromium=PATH"
            + " (mvn verify installs it with examples/install-chromium.sh where /usr/bin/chromium is missing)");
  }

  static String attribute(String dom, String name) {
    Matcher m = Pattern.compile("<body[^>]*\\s" + name + "=\"([^\"]*)\"").matcher(dom);
    assertThat(m.find()).as("<body %s=...> in the rendered DOM:%n%s", name, dom).isTrue();
    return m.group(1);
  }
}
