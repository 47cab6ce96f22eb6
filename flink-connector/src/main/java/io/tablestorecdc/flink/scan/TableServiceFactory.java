package io.tablestorecdc.flink.scan;

import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableService;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/** Opens the table's read service where it is used: in the enumerator and in each reader. */
@Internal
@FunctionalInterface
public interface TableServiceFactory extends Serializable {

    /** A new service; the caller closes it. */
    TableService open();

    /** The SDK service of the table {@code connection} names. */
    static TableServiceFactory sdk(TableConnection connection) {
        return new Sdk(connection);
    }

    /** Keeps the connection (its secrets never in {@link #toString()}). */
    final class Sdk implements TableServiceFactory {
        private static final long serialVersionUID = 1L;
        private final TableConnection connection;

        private Sdk(TableConnection connection) {
            this.connection = connection;
        }

        @Override
        public TableService open() {
            return SdkTableService.connect(connection.tablestoreEndpoint(), connection.tableName());
        }

        @Override
        public String toString() {
            return "SdkTableServiceFactory{table=" + connection.tableName() + "}";
        }
    }
}
