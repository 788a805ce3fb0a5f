/**
 * The read-only {@code ringtail} Actuator endpoint ({@link
 * io.ringtail.spring.actuate.RingtailEndpoint}): the windows and their snapshots, and every section
 * the starter's other parts contribute as a {@link io.ringtail.spring.RingtailEndpointSection}
 * bean.
 */
package io.ringtail.spring.actuate;
