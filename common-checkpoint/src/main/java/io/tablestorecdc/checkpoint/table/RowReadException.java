package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * A row the service would not read: names the table, the key and the service's code and message.
 */
@Internal
public final class RowReadException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String code;

    RowReadException(String table, PrimaryKey key, ServiceError error, int attempts) {
        super(
                "Reading row "
                        + key
                        + " of table '"
                        + table
                        + "' failed with "
                        + error.code()
                        + ": "
                        + error.message()
                        + (error.retriable()
                                ? " (still failing after " + attempts + " attempts)"
                                : " (not retriable)"));
        this.code = error.code();
    }

    /** The service's error code. */
    public String code() {
        return code;
    }
}
