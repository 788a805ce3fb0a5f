package io.ringtail.redis.testkit;

import io.ringtail.redis.OutagePolicy;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How {@link RedisExtension} builds the {@link io.ringtail.redis.RedisBackend} it hands the tests
 * of the annotated class (and of its nested classes); without it, the defaults below.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface BackendOptions {
  /** The backend's and the connection's command timeout. */
  long commandTimeoutMillis() default 5_000;

  /** What decisions answer while Redis cannot. */
  OutagePolicy outagePolicy() default OutagePolicy.FAIL_CLOSED;

  /** On the shared local 3-master cluster instead of the standalone server. */
  boolean cluster() default false;
}
