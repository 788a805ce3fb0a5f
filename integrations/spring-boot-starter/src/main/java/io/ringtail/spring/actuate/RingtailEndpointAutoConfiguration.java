package io.ringtail.spring.actuate;

import io.ringtail.WindowConventions;
import io.ringtail.spring.ObservedWindows;
import io.ringtail.spring.RingtailAutoConfiguration;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The read-only {@code ringtail} Actuator endpoint ({@link RingtailEndpoint}), when Actuator is
 * present and the endpoint is available (exposed, and its access not restricted).
 */
@AutoConfiguration(
    after = RingtailAutoConfiguration.class,
    afterName = "io.ringtail.spring.observation.RingtailObservationAutoConfiguration")
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnAvailableEndpoint(RingtailEndpoint.class)
public class RingtailEndpointAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RingtailEndpoint ringtailEndpoint(
      ListableBeanFactory beans,
      ObjectProvider<ObservedWindows> observations,
      ObjectProvider<WindowConventions> conventions) {
    return new RingtailEndpoint(
        beans, observations, conventions.getIfAvailable(WindowConventions::defaults));
  }
}
