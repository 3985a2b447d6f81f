-- Why a brownout window was cancelled, when the server cancelled it rather than an admin: once a
-- deprecation is undone (the mark removed from the contract), the item's windows that have not ended are
-- cancelled with a note saying so (cancelled_by stays NULL: no user did it).
ALTER TABLE brownouts ADD COLUMN cancel_note text;
