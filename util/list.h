/*
 * util/list.h: the doubly-linked list the server's connections and
 * sessions and the daemon's session data are kept on. Intrusive: a node is
 * any struct with `prev` and `next` pointers to its own type, the list a
 * pointer to its first node (NULL when empty). Macros, so that one pair
 * serves every node type; each argument is evaluated more than once, so
 * pass plain lvalues.
 */
#ifndef LG_LIST_H
#define LG_LIST_H

/* Puts node (whose prev is NULL) in front of the list whose first node is
 * head. */
#define LG_LIST_PUSH(head, node)                                               \
	do {                                                                   \
		(node)->next = (head);                                         \
		if (head)                                                      \
			(head)->prev = (node);                                 \
		(head) = (node);                                               \
	} while (0)

/* Takes node out of the list whose first node is head; node's own prev and
 * next are left as they were. */
#define LG_LIST_UNLINK(head, node)                                             \
	do {                                                                   \
		if ((node)->prev)                                              \
			(node)->prev->next = (node)->next;                     \
		else                                                           \
			(head) = (node)->next;                                 \
		if ((node)->next)                                              \
			(node)->next->prev = (node)->prev;                     \
	} while (0)

#endif
