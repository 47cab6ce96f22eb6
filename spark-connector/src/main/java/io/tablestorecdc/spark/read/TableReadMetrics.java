package io.tablestorecdc.spark.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The task metrics of a batch read of {@code format("tablestore")}, summed over the scan's tasks
 * and shown on the scan node in the Spark UI.
 *
 * <p>The metric classes are public with a no-argument constructor because Spark re-creates them by
 * class name on the driver.
 */
@Internal
public final class TableReadMetrics {

    static final String ROWS_READ = "rowsRead";
    static final String GET_RANGE_REQUESTS = "getRangeRequests";

    private TableReadMetrics() {}

    static CustomMetric[] supported() {
        return new CustomMetric[] {new RowsRead(), new GetRangeRequests()};
    }

    static CustomTaskMetric[] taskValues(long rowsRead, long requests) {
        return new CustomTaskMetric[] {
            value(ROWS_READ, rowsRead), value(GET_RANGE_REQUESTS, requests)
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

    /** Rows read from the table. */
    public static final class RowsRead extends CustomSumMetric {
        @Override
        public String name() {
            return ROWS_READ;
        }

        @Override
        public String description() {
            return "rows read from the table";
        }
    }

    /** GetRange requests sent (one per page of at most 5000 rows). */
    public static final class GetRangeRequests extends CustomSumMetric {
        @Override
        public String name() {
            return GET_RANGE_REQUESTS;
        }

        @Override
        public String description() {
            return "GetRange requests sent to the table";
        }
    }
}
