-- A check inside a statement that writes several tables at once (an order with its items, its kept
-- reservations and its completed idempotency key): when `ok` is not true the statement fails with
-- SQLSTATE OA001 and `failure` as its message, so none of its writes lands. Used where a condition on what
-- one part of the statement changed decides whether all of it may commit.
CREATE FUNCTION statement_check(ok boolean, failure text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'OA001', MESSAGE = failure;
  END IF;
  RETURN true;
END
$$;
