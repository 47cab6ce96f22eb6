package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The task metrics of this source, summed over a batch's tasks and shown in the Spark UI.
 *
 * <p>The metric classes are public with a no-argument constructor because Spark re-creates them by
 * class name on the driver.
 */
@Internal
public final class SourceMetrics {

    static final String RECORDS_READ = "recordsRead";
    static final String READ_REQUESTS = "readRequests";
    static final String SKIPPED_INVALID = "skippedInvalidRecords";
    static final String RETRIES = "tunnelRetries";

    private SourceMetrics() {}

    static CustomMetric[] supported() {
        return new CustomMetric[] {
            new RecordsRead(), new ReadRequests(), new SkippedInvalidRecords(), new TunnelRetries()
        };
    }

    static CustomTaskMetric[] taskValues(
            long recordsRead, long readRequests, long skippedInvalid, long retries) {
        return new CustomTaskMetric[] {
            value(RECORDS_READ, recordsRead),
            value(READ_REQUESTS, readRequests),
            value(SKIPPED_INVALID, skippedInvalid),
            value(RETRIES, retries)
        };
    }

    private static CustomTaskMetric value(String name, long value) {
        return new CustomTaskMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long value() {
                return value;
            }
        };
    }

    /** Change records read from the tunnel (including skipped and ignored ones). */
    public static final class RecordsRead extends CustomSumMetric {
        @Override
        public String name() {
            return RECORDS_READ;
        }

        @Override
        public String description() {
            return "change records read from the tunnel";
        }
    }

    /** readRecords requests sent to the tunnel server. */
    public static final class ReadRequests extends CustomSumMetric {
        @Override
        public String name() {
            return READ_REQUESTS;
        }

        @Override
        public String description() {
            return "read requests sent to the tunnel";
        }
    }

    /** Records dropped because a value did not fit the schema (skip.invalid.data=true). */
    public static final class SkippedInvalidRecords extends CustomSumMetric {
        @Override
        public String name() {
            return SKIPPED_INVALID;
        }

        @Override
        public String description() {
            return "records skipped because a value did not fit the schema";
        }
    }

    /** Tunnel calls repeated after a transient server error. */
    public static final class TunnelRetries extends CustomSumMetric {
        @Override
        public String name() {
            return RETRIES;
        }

        @Override
        public String description() {
            return "tunnel calls retried after a transient error";
        }
    }
}
