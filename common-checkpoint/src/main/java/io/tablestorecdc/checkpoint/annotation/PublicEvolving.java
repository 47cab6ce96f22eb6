package io.tablestorecdc.checkpoint.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A type of the core that programs use: the connectors' public signatures name it, and it keeps its
 * name and meaning within a minor version, changes listed in {@code docs/migrating.md}. Flink's
 * annotation of the same name marks the Flink connector's API the same way.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface PublicEvolving {}
