package io.tablestorecdc.checkpoint.write;

import io.tablestorecdc.checkpoint.model.TransientErrors;

/** What a user can do about a write the service refused, by its error code. */
final class WriteHints {

    private WriteHints() {}

    static String forCode(String code) {
        if ("OTSInvalidPK".equals(code)) {
            return "The row's primary key does not fit the table: send every primary-key column of"
                    + " the table, in the table's order, with the table's types";
        }
        if ("OTSParameterInvalid".equals(code)) {
            return "The row does not fit the table: check that every primary-key column is"
                    + " present with the table's type and that column names and values are ones"
                    + " Tablestore accepts";
        }
        if ("OTSObjectNotExist".equals(code)) {
            return "The table does not exist: create it, or check table.name and the instance";
        }
        if ("OTSAuthFailed".equals(code) || "OTSNoPermissionAccess".equals(code)) {
            return "Check the credentials and that they may write this table";
        }
        if (TransientErrors.isTransient(code) || "ClientError".equals(code)) {
            return "The service or the network is overloaded or unavailable: check the endpoint"
                    + " and network, raise the number of retries, or lower the write rate";
        }
        return "Fix the input or the table as the service's message says";
    }
}
