package io.ringtail.alert;

import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Evaluates {@link AlertRule}s against their windows and tells {@link AlertListener}s when a rule
 * fires or resolves.
 *
 * <p>Evaluation runs only when asked: {@link #evaluate()} on the caller's thread, {@link
 * #evaluateOn(Executor)} on an executor, or {@link #scheduleWith} on a scheduler the user supplies.
 * The monitor starts no thread, and windows know nothing of it: recording never pays for alerting.
 * With no rule, an evaluation returns at once, reading neither clock nor window. One evaluation
 * takes one snapshot per window, shared by every rule on that window.
 *
 * <p>{@link #snapshot} reads where a rule stands (state, values, baseline, fired value) and {@link
 * #add(AlertRule, RuleSnapshot)} adds a rule that goes on from such a snapshot, in this monitor or
 * another: the hand-over of a rule from one evaluator to the next.
 *
 * <p>Thread-safe: rules and listeners may be added and removed at any time; evaluations are
 * serialised, and listeners are called in order on the evaluating thread. A window that fails to
 * give a snapshot (a Redis window while Redis is down) is logged and its rules keep their state
 * until the next evaluation.
 */
public final class AlertMonitor {
  private static final System.Logger LOG = System.getLogger(AlertMonitor.class.getName());

  /** Where a rule stands. */
  public enum State {
    /** Not firing (possibly cooling down after a resolve). */
    OK,
    /** Breaching, waiting out {@link AlertRule.Builder#fireAfter fireAfter}. */
    PENDING,
    /** Fired and not yet resolved. */
    FIRING
  }

  private final TimeSource time;
  private final List<RuleState> rules = new CopyOnWriteArrayList<>();
  private final List<AlertListener> listeners = new CopyOnWriteArrayList<>();

  private AlertMonitor(TimeSource time) {
    this.time = time;
  }

  /** A monitor reading {@link TimeSource#system()}. */
  public static AlertMonitor create() {
    return create(TimeSource.system());
  }

  /** A monitor reading {@code time} for pending, cooldown and baseline periods. */
  public static AlertMonitor create(TimeSource time) {
    return new AlertMonitor(Checks.requireNonNull("time", time));
  }

  /**
   * Adds a rule, starting in {@link State#OK}.
   *
   * @throws IllegalArgumentException if a rule of the same name is already added
   */
  public synchronized AlertMonitor add(AlertRule rule) {
    requireNewName(Checks.requireNonNull("rule", rule));
    rules.add(new RuleState(rule));
    return this;
  }

  /**
   * Adds a rule that goes on from where {@code from} says it stood (in this monitor or another):
   * the hand-over of a rule from one evaluator to the next. The state, values, baseline and fired
   * value continue; a pending period starts again now; what {@link RuleSnapshot} does not hold
   * (cooldown, detector, deviation history) starts afresh. A fire handed over is not announced
   * again, and its resolve is announced here.
   *
   * @throws IllegalArgumentException if a rule of the same name is already added, or {@code from}
   *     is of another rule, or is firing without the finite baseline and fired value that {@link
   *     AlertRule.Builder#resolveWhenBack resolveWhenBack} needs
   */
  public synchronized AlertMonitor add(AlertRule rule, RuleSnapshot from) {
    requireNewName(Checks.requireNonNull("rule", rule));
    rules.add(new RuleState(rule, from, time.nanoTime()));
    return this;
  }

  private void requireNewName(AlertRule rule) {
    for (RuleState r : rules) {
      if (r.rule().name().equals(rule.name())) {
        throw Checks.invalid("rule name", "unique in a monitor", rule.name());
      }
    }
  }

  /** Removes the rule of this name, with its state, without an event; whether there was one. */
  public synchronized boolean remove(String ruleName) {
    Checks.requireNonNull("ruleName", ruleName);
    return rules.removeIf(r -> r.rule().name().equals(ruleName));
  }

  /** The rules, in the order added. */
  public List<AlertRule> rules() {
    return rules.stream().map(RuleState::rule).toList();
  }

  /**
   * Where the rule of this name stands.
   *
   * @throws IllegalArgumentException if no rule has this name
   */
  public synchronized State state(String ruleName) {
    return ruleState(ruleName).state();
  }

  /**
   * The value the rule of this name had at the last evaluation (the measure, burn rate, ratio,
   * deviation or anomaly score); NaN before its first evaluation or when there was no data. For a
   * dashboard that shows a rule's value between its events.
   *
   * @throws IllegalArgumentException if no rule has this name
   */
  public synchronized double lastValue(String ruleName) {
    return ruleState(ruleName).lastValue();
  }

  /**
   * Where the rule of this name stands after its last evaluation, with its baseline and fired
   * value: to show, or to hand over to another monitor with {@link #add(AlertRule, RuleSnapshot)}.
   *
   * @throws IllegalArgumentException if no rule has this name
   */
  public synchronized RuleSnapshot snapshot(String ruleName) {
    return ruleState(ruleName).snapshot();
  }

  private RuleState ruleState(String ruleName) {
    Checks.requireNonNull("ruleName", ruleName);
    for (RuleState r : rules) {
      if (r.rule().name().equals(ruleName)) {
        return r;
      }
    }
    throw Checks.invalid("ruleName", "the name of a rule of this monitor", ruleName);
  }

  /** Adds a listener. */
  public AlertMonitor addListener(AlertListener listener) {
    listeners.add(Checks.requireNonNull("listener", listener));
    return this;
  }

  /** Removes a listener; whether it was there. */
  public boolean removeListener(AlertListener listener) {
    return listeners.remove(listener);
  }

  /**
   * Evaluates every rule now, tells the listeners, and returns the events (fired and resolved), in
   * rule order.
   */
  public List<AlertEvent> evaluate() {
    if (rules.isEmpty()) {
      return List.of();
    }
    synchronized (this) {
      long now = time.nanoTime();
      Map<RollingWindow, WindowSnapshot> snapshots = new IdentityHashMap<>();
      List<AlertEvent> events = new ArrayList<>(0);
      for (RuleState rule : rules) {
        try {
          AlertEvent event =
              rule.evaluate(now, w -> snapshots.computeIfAbsent(w, RollingWindow::snapshot));
          if (event != null) {
            events.add(event);
          }
        } catch (RuntimeException e) {
          LOG.log(
              Level.WARNING,
              "Rule " + rule.rule().name() + " could not be evaluated; its state is kept",
              e);
        }
      }
      for (AlertEvent event : events) {
        for (AlertListener listener : listeners) {
          try {
            listener.onEvent(event);
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Alert listener " + listener + " failed on " + event, e);
          }
        }
      }
      return events;
    }
  }

  /** Hands one evaluation to {@code executor}. */
  public void evaluateOn(Executor executor) {
    Checks.requireNonNull("executor", executor).execute(this::evaluate);
  }

  /**
   * Evaluates every {@code period} on {@code scheduler}, first after one period; cancel the
   * returned future to stop. The schedule survives failing rules and listeners.
   */
  public ScheduledFuture<?> scheduleWith(ScheduledExecutorService scheduler, Duration period) {
    Checks.requireNonNull("scheduler", scheduler);
    long nanos = Checks.requirePositiveNanos("period", period);
    return scheduler.scheduleAtFixedRate(this::evaluate, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public String toString() {
    return "AlertMonitor[rules="
        + rules().stream().map(AlertRule::name).toList()
        + ", listeners="
        + listeners.size()
        + "]";
  }
}
